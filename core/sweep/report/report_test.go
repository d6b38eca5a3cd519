package report_test

import (
	"encoding/csv"
	"encoding/xml"
	"errors"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep/report"
	"github.com/proflab/proflab/core/sweep/results"
)

// fixture writes a results file of a 2×2 sweep (interval numeric, version
// not) with 3 repeats, one failed run, and returns its folder.
func fixture(t *testing.T) string {
	dir := t.TempDir()
	var lines []results.Line
	i := 0
	for _, v := range []string{"6.1", "6.2"} {
		for _, iv := range []int64{1000, 40000} {
			for r := range 3 {
				l := results.Line{Index: i, ID: results.Scrub("id") + string(rune('a'+i)), Repeat: r, Seed: uint64(i),
					Params:  map[string]any{"interval": iv, "version": v, "cpus": int64(4)},
					Metrics: map[string]any{"err": float64(iv)/1000 + float64(r), "nested": map[string]any{"x": float64(r)}, "name": "n"},
					Status:  results.StatusOK, Checks: []results.Check{}, Interrupts: map[string]uint64{}}
				if v == "6.2" && iv == 1000 && r == 2 {
					l.Status = results.StatusFailed
					l.Error = &results.Error{Kind: "plugin", Message: "crashed"}
					l.Metrics = map[string]any{}
				}
				lines = append(lines, l)
				i++
			}
		}
	}
	if err := results.Write(filepath.Join(dir, results.FileName), lines); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWrite(t *testing.T) {
	dir := fixture(t)
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}

	// CSV: a header with params and flattened metrics, a row per run
	f, _ := os.Open(filepath.Join(dir, report.CSVName))
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 13 {
		t.Fatalf("csv: %d rows, %v", len(rows), err)
	}
	if got := strings.Join(rows[0], ","); got != "index,id,repeat,seed,status,cpus,interval,version,err,name,nested.x,error" {
		t.Errorf("csv header %s", got)
	}
	if got := strings.Join(rows[9], ","); got != "8,idi,2,8,failed,4,1000,6.2,,,,plugin: crashed" {
		t.Errorf("csv failed row %s", got)
	}

	// summary: statistics over repeats per point, failures counted
	sum, _ := os.ReadFile(filepath.Join(dir, report.SummaryName))
	for _, want := range []string{
		"12 runs: 11 ok, 1 failed, 0 error.",
		"Fixed parameters: cpus = 4.",
		"| interval | version | n | mean | 95% CI | stddev | min | max | failures |",
		"| 40000 | 6.1 | 3 | 41 | [38.5158, 43.4842] | 1 | 40 | 42 | 0 |",     // t(0.975, 2) = 4.3027
		"| 1000 | 6.2 | 2 | 1.5 | [-4.8531, 7.8531] | 0.707107 | 1 | 2 | 1 |", // t(0.975, 1) = 12.7062
		"| 1000 | 6.2 | 3 | 2 | 1 | 0 |",
	} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, sum)
		}
	}

	// plots: each metric against the numeric varying parameter, one
	// series per version, and a pass/fail matrix for version; every SVG
	// parses as XML
	for _, name := range []string{"err-vs-interval.svg", "nested.x-vs-interval.svg", "status-by-version.svg"} {
		parseXML(t, filepath.Join(dir, report.PlotsDir, name))
	}
	svgs, _ := filepath.Glob(filepath.Join(dir, report.PlotsDir, "*.svg"))
	if len(svgs) != 3 {
		t.Errorf("%d plots: %v", len(svgs), svgs)
	}

	// the page references only files that exist, and needs no network
	page, _ := os.ReadFile(filepath.Join(dir, report.HTMLName))
	refs := regexp.MustCompile(`(?:href|src)="([^"]*)"`).FindAllStringSubmatch(string(page), -1)
	local := 0
	for _, m := range refs {
		ref := html.UnescapeString(m[1])
		switch {
		case strings.HasPrefix(ref, "data:image/svg+xml;base64,"):
		case strings.Contains(ref, "://") || strings.HasPrefix(ref, "//"):
			t.Errorf("report.html needs the network: %.80s", ref)
		default:
			local++
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(ref))); err != nil {
				t.Errorf("report.html references %.80s, which does not exist", ref)
			}
		}
	}
	if local < 3+len(svgs) || !strings.Contains(string(page), "<td>0.707107</td>") {
		t.Errorf("report.html: %d local references, want the files and plots, and the summary table", local)
	}

	// the reports are a function of the results: written again, the same
	before := snapshot(t, dir)
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, dir); after != before {
		t.Error("writing the reports twice gave different bytes")
	}
}

// A sweep that did not finish (torn last line) is refused.
func TestWriteTorn(t *testing.T) {
	dir := fixture(t)
	f, _ := os.OpenFile(filepath.Join(dir, results.FileName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"index":`)
	f.Close()
	if _, err := report.Write(dir); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("torn results: %v", err)
	}
}

func parseXML(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := xml.NewDecoder(f)
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("%s: root element %q, want svg", path, root)
	}
}

func snapshot(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			c, _ := os.ReadFile(p)
			b.WriteString(p + "\n" + string(c))
		}
		return nil
	})
	return b.String()
}
