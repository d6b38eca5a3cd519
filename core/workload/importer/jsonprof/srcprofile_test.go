package jsonprof_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// TestSourceImagesAndNames: the JSON formats' images are named by the
// last element of the script's path or URL (module names and URLs
// without a file kept whole, a second file of one name "#2"), and
// functions of one image that share a name are told apart by where they
// start, then by " #2".
func TestSourceImagesAndNames(t *testing.T) {
	t.Parallel()
	type fn struct {
		name, url string
		line, col int
	}
	fns := []fn{
		{"a", "https://example.com/js/app.js?v=2#x", 0, 0},
		{"b", "node:internal/timers", 0, 0},
		{"c", `C:\app\main.js`, 0, 0},
		{"d", "https://example.com/", 0, 0},
		{"e", "/srv/a/index.js", 0, 0},
		{"e2", "/srv/b/index.js", 0, 0},
		{"", "/srv/a/index.js", 2, 4},        // (anonymous) (3:5)
		{"", "/srv/a/index.js", 9, 0},        // (anonymous) (10:1)
		{"g", "/srv/a/index.js", 2, 0},       // g (3:1)
		{"g", "/srv/a/index.js", 4, 0},       // g (5:1)
		{"g (3:1)", "/srv/a/index.js", 7, 0}, // a name that is taken: #2
	}
	var b strings.Builder
	b.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[`)
	for i := range fns {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, i+2)
	}
	b.WriteString(`]}`)
	var samples, deltas []string
	for i, f := range fns {
		fmt.Fprintf(&b, `,{"id":%d,"callFrame":{"functionName":%q,"url":%q,"lineNumber":%d,"columnNumber":%d}}`, i+2, f.name, f.url, f.line, f.col)
		samples, deltas = append(samples, fmt.Sprint(i+2)), append(deltas, "10")
	}
	fmt.Fprintf(&b, `],"startTime":0,"endTime":%d,"samples":[%s],"timeDeltas":[%s]}`, 10*len(fns)+10, strings.Join(samples, ","), strings.Join(deltas, ","))
	im, err := importer.Import("names.cpuprofile", []byte(b.String()), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	for _, w := range [][2]string{
		{"app.js", "a"}, {"node:internal/timers", "b"}, {"main.js", "c"}, {"https://example.com/", "d"},
		{"index.js", "e"}, {"index.js#2", "e2"},
		{"index.js", "(anonymous) (3:5)"}, {"index.js", "(anonymous) (10:1)"},
		{"index.js", "g (3:1)"}, {"index.js", "g (5:1)"}, {"index.js", "g (3:1) #2"},
	} {
		importtest.Function(t, im.Spec, w[0], w[1])
	}
	if !strings.Contains(strings.Join(im.Notes, "\n"), `two images are named "index.js"`) {
		t.Errorf("notes %q do not say two images share index.js", im.Notes)
	}
}

// TestJSONFormatsDeterministic: importing a file twice gives the same
// bytes (maps are never read in their random order).
func TestJSONFormatsDeterministic(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"node_cpu.cpuprofile", "chrome_trace_small.json", "node_trace.json", "speedscope_small.json",
		"speedscope_pyspy.json", "gecko_small.json", "gecko_processed.json", "gecko_processed_v63.json", "firefox_gecko.json.gz",
		"stackprof_cpu.json", "stackprof_noraw.json", "stackprof_small.json"} {
		var first []byte
		for range 3 {
			im := importFile(t, name, importer.Options{})
			text, err := im.TOML()
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = text
			} else if !bytes.Equal(first, text) {
				t.Errorf("%s: two imports give different workloads", name)
				break
			}
		}
	}
}
