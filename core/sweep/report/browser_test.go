package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/proflab/proflab/core/sweep/report"
)

// chromium is the headless browser's path, or the test is skipped (CI
// installs the Debian package chromium).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium in PATH (apt-get install chromium)")
	return ""
}

// probePage loads report.html in a frame and writes what the browser
// laid out into the page, for --dump-dom to print.
const probePage = `<!DOCTYPE html><html><body>
<iframe id="f" src="report.html" style="width:1280px;height:900px"></iframe>
<pre id="out">pending</pre>
<script>
document.getElementById("f").addEventListener("load", function () {
  var d = this.contentDocument, r = {};
  var imgs = d.querySelectorAll("figure img"), det = d.querySelector("details");
  r.plots = imgs.length;
  r.decoded = 0;
  imgs.forEach(function (i) { if (i.complete && i.naturalWidth > 0) r.decoded++; });
  r.firstPlotTop = imgs.length ? imgs[0].getBoundingClientRect().top : -1;
  r.firstTableTop = det ? det.getBoundingClientRect().top : -1;
  r.tableShown = det ? (det.open || det.querySelector("table").checkVisibility()) : true;
  r.overflow = d.documentElement.scrollWidth - d.documentElement.clientWidth;
  document.getElementById("out").textContent = JSON.stringify(r);
});
</script></body></html>`

// The page as a browser draws it: every plot decodes, the first plot
// stands above the first table, the tables are folded, nothing spills
// sideways out of a 1280-pixel window, and a screenshot is produced.
func TestPageInBrowser(t *testing.T) {
	bin := chromium(t)
	dir := fixture(t)
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "probe.html"), []byte(probePage), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--allow-file-access-from-files",
		"--user-data-dir=" + filepath.Join(dir, ".chromium"), "--window-size=1300,1000"}
	out, err := exec.CommandContext(ctx, bin, append(flags, "--virtual-time-budget=5000", "--dump-dom",
		"file://"+filepath.Join(dir, "probe.html"))...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	m := regexp.MustCompile(`<pre id="out">([^<]*)</pre>`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no layout in the dumped page:\n%.2000s", out)
	}
	var r struct {
		Plots, Decoded                        int
		FirstPlotTop, FirstTableTop, Overflow float64
		TableShown                            bool
	}
	if err := json.Unmarshal(m[1], &r); err != nil {
		t.Fatalf("layout %s: %v", m[1], err)
	}
	t.Logf("layout: %s", m[1])
	if r.Plots != 3 || r.Decoded != r.Plots {
		t.Errorf("%d plots, %d decoded by the browser; want 3, all", r.Plots, r.Decoded)
	}
	if !(r.FirstPlotTop >= 0 && r.FirstPlotTop < r.FirstTableTop) {
		t.Errorf("first plot at y=%v, first table at y=%v: the plots come first", r.FirstPlotTop, r.FirstTableTop)
	}
	if r.TableShown {
		t.Error("the first table is shown: it should be folded")
	}
	if r.Overflow > 0 {
		t.Errorf("the page is %v pixels wider than the window", r.Overflow)
	}

	shot := filepath.Join(dir, "page.png")
	if _, err := exec.CommandContext(ctx, bin, append(flags, "--screenshot="+shot,
		"file://"+filepath.Join(dir, report.HTMLName))...).Output(); err != nil {
		t.Fatalf("chromium --screenshot: %v", err)
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if w := img.Bounds().Dx(); w != 1300 {
		t.Errorf("screenshot %d pixels wide, want the window's 1300", w)
	}
	if os.Getenv("PROFLAB_KEEP_SCREENSHOT") != "" {
		os.WriteFile(os.Getenv("PROFLAB_KEEP_SCREENSHOT"), b, 0o644)
	}
}
