package jsonprof_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/jsonprof"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// TestGecko reads hand-made Firefox profiles, one of each form, whose
// weights are worked out by hand: samples times the interval, stacks
// through the prefix links, functions from the locations (Gecko format)
// or the function table (processed), native frames at their addresses,
// the Idle category's samples kept or dropped.
func TestGecko(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file    string
		opt     importer.Options
		process string
		stacks  map[string]float64
		busy    float64
		images  string
	}{
		{"gecko_small.json", importer.Options{}, "Parent Process", map[string]float64{
			"draw <- onLoad <- firefox+0x1000 <- (root)":           4,
			"0x7fff00001234 <- onLoad <- firefox+0x1000 <- (root)": 2,
			"moz_xmalloc <- firefox+0x1000 <- (root)":              2,
			"__GI___poll <- (root)":                                2,
			"onLoad <- firefox+0x1000 <- (root)":                   2,
		}, 12.0 / 14, jsonprof.NoFileImage + "," + jsonprof.GeckoUnknownImage + ",app.js,firefox,libmozglue.so"},
		{"gecko_small.json", importer.Options{DropIdle: true}, "Parent Process", map[string]float64{
			"draw <- onLoad <- firefox+0x1000 <- (root)":           4,
			"0x7fff00001234 <- onLoad <- firefox+0x1000 <- (root)": 2,
			"moz_xmalloc <- firefox+0x1000 <- (root)":              2,
			"onLoad <- firefox+0x1000 <- (root)":                   2,
		}, 10.0 / 14, ""},
		{"gecko_processed.json", importer.Options{}, "Web Content", map[string]float64{
			"js::RunScript <- nsThread::ProcessNextEvent <- (root)":           2,
			"render <- js::RunScript <- nsThread::ProcessNextEvent <- (root)": 1,
			"PollWrapper <- (root)":                          1,
			"0x2a40 <- nsThread::ProcessNextEvent <- (root)": 1,
		}, 5.0 / 6, jsonprof.NoFileImage + ",app.js,libxul.so"},
		// the same profile as version 63 writes it: tables in "shared",
		// the script in shared.sources
		{"gecko_processed_v63.json", importer.Options{}, "Web Content", map[string]float64{
			"js::RunScript <- nsThread::ProcessNextEvent <- (root)":           2,
			"render <- js::RunScript <- nsThread::ProcessNextEvent <- (root)": 1,
			"PollWrapper <- (root)":                          1,
			"0x2a40 <- nsThread::ProcessNextEvent <- (root)": 1,
		}, 5.0 / 6, jsonprof.NoFileImage + ",app.js,libxul.so"},
	} {
		im := importFile(t, c.file, c.opt)
		if im.Format != importer.Gecko || im.SampleType != "wall/milliseconds" || im.PeriodUnit != "milliseconds" {
			t.Errorf("%s: format %s, sample type %s, period unit %s", c.file, im.Format, im.SampleType, im.PeriodUnit)
		}
		importtest.EqualWeights(t, c.file, importtest.StackWeights(im.Spec), c.stacks)
		if b := importtest.Busies(im.Spec)[c.process]; len(b) != 1 || !importtest.Near(b[0], c.busy) {
			t.Errorf("%s %+v: busy %v, want %s [%v]", c.file, c.opt, importtest.Busies(im.Spec), c.process, c.busy)
		}
		if got := strings.Join(sortStrings(importtest.ImageNames(im.Spec)), ","); c.images != "" && got != c.images {
			t.Errorf("%s: images %s, want %s", c.file, got, c.images)
		}
	}
	// A native frame keeps its address: firefox+0x1000 is at offset
	// 0x1000 of the library mapped at 0x400000, which keeps its base.
	im := importFile(t, "gecko_small.json", importer.Options{})
	img, f := importtest.Function(t, im.Spec, "firefox", "firefox+0x1000")
	if img.Base != 0x400000 || f.Offset != 0x1000 || f.Size != profmodel.Padding {
		t.Errorf("firefox+0x1000 at %s+%s, %d bytes; want 0x400000+0x1000, %d bytes", img.Base, f.Offset, f.Size, profmodel.Padding)
	}
	// A processed profile's addresses are library-relative: the leaf
	// 0x2a40 has its hotspot there.
	pr := importFile(t, "gecko_processed.json", importer.Options{})
	_, leaf := importtest.Function(t, pr.Spec, "libxul.so", "0x2a40")
	_, caller := importtest.Function(t, pr.Spec, "libxul.so", "nsThread::ProcessNextEvent")
	if len(leaf.Hotspots) != 1 || uint64(leaf.Offset+workload.Address(leaf.Hotspots[0].Offset))-uint64(caller.Offset) != 0x2a40-0x1000 {
		t.Errorf("0x2a40 at +%s (hotspots %+v), ProcessNextEvent at +%s: want them 0x1a40 apart, as in the library", leaf.Offset, leaf.Hotspots, caller.Offset)
	}
}

// TestGeckoDevTools reads Firefox DevTools' old export: a Gecko profile
// under "profile", its rows without schema.
func TestGeckoDevTools(t *testing.T) {
	t.Parallel()
	data := `{"profile":{"meta":{"interval":1},"threads":[{"name":"GeckoMain",
"samples":{"data":[[1,0],[1,1],[0,2]]},"stackTable":{"data":[[null,0],[0,1]]},"frameTable":{"data":[[0],[1]]},
"stringTable":["(root)","f (http://x/a.js:3)"]}]},"duration":3,"systemHost":{"name":"Firefox"}}`
	im, err := importer.Import("devtools.json", []byte(data), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{"f <- (root)": 2, "(root)": 1})
	if b := importtest.Busies(im.Spec)["firefox"]; len(b) != 1 || b[0] != 1 {
		t.Errorf("busy %v, want one thread of firefox, busy 1 (3 samples of 1 ms over 3 ms)", importtest.Busies(im.Spec))
	}
}

// TestGeckoFirefox reads a real profile of Firefox ESR 140 (the Gecko
// format, version 34, as MOZ_PROFILER_SHUTDOWN writes it) of
// testdata/firefox_page.html, trimmed to its content process's main
// thread: the page's heavy and light functions are found in their
// script, the idle samples are dropped on demand.
func TestGeckoFirefox(t *testing.T) {
	t.Parallel()
	im := importFile(t, "firefox_gecko.json.gz", importer.Options{DropIdle: true})
	if len(im.Spec.Processes) != 1 || im.Spec.Processes[0].Name != "file:// Content" {
		t.Fatalf("processes %+v, want the file:// Content process", im.Spec.Processes)
	}
	var heavy, light bool
	for k := range importtest.StackWeights(im.Spec) {
		heavy = heavy || strings.Contains(k, "heavy")
		light = light || strings.Contains(k, "light")
	}
	if !heavy || !light {
		t.Errorf("no stack through the page's heavy (%v) or light (%v)", heavy, light)
	}
	importtest.Function(t, im.Spec, "page.html", "heavy")
	if !strings.Contains(strings.Join(im.Notes, "\n"), "idle samples (category Idle) were dropped") {
		t.Errorf("notes %q do not count the idle samples dropped", im.Notes)
	}
	if _, err := importer.Import("ff.json.gz", readTestdata(t, "firefox_gecko.json.gz"), importer.Options{Process: "Web Content"}); err == nil || !strings.Contains(err.Error(), "file:// Content") {
		t.Errorf("--process Web Content: %v, want an error listing file:// Content", err)
	}
}

// TestGeckoErrors: damaged profiles are errors naming the file and what
// is wrong.
func TestGeckoErrors(t *testing.T) {
	t.Parallel()
	thread := func(samples, stacks, frames string) string {
		return `{"meta":{"version":20,"interval":1},"libs":[],"threads":[{"name":"T","pid":"1","tid":1,
"samples":{"schema":{"stack":0,"time":1},"data":[` + samples + `]},
"stackTable":{"schema":{"prefix":0,"frame":1},"data":[` + stacks + `]},
"frameTable":{"schema":{"location":0},"data":[` + frames + `]},
"stringTable":["a","b"]}]}`
	}
	for _, c := range []struct{ name, data, want string }{
		{"unknown stack", thread(`[5,1]`, `[null,0]`, `[0]`), "sample 0 names stack 5; the stackTable has 1"},
		{"unknown frame", thread(`[0,1]`, `[null,4]`, `[0]`), "names frame 4; the frameTable has 1"},
		{"cycle", thread(`[0,1]`, `[1,0],[0,1]`, `[0],[1]`), "its own prefix"},
		{"unknown string", thread(`[0,1]`, `[null,0]`, `[9]`), "frame 0 has no location string"},
		{"thread as a string", `{"meta":{"version":2,"interval":1},"threads":["{}"]}`, "open the file in profiler.firefox.com"},
		{"no samples", thread(``, `[null,0]`, `[0]`), "no sample is left"},
		{"bad table", `{"meta":{"version":20},"threads":[{"samples":{"schema":{"stack":"zero"},"data":[]}}]}`, "threads[0] cannot be read"},
	} {
		_, err := importer.Import("in.json", []byte(c.data), importer.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "in.json") {
			t.Errorf("%s: error %v, want one naming in.json and saying %q", c.name, err, c.want)
		}
	}
}

// TestGeckoInlined: a processed profile's frame of inlineDepth 1 is
// inlined into the frame after it (its caller at the same address): the
// function is inline (no address of its own), its stacks say so, and
// the address is the physical caller's.
func TestGeckoInlined(t *testing.T) {
	t.Parallel()
	data := strings.Replace(string(readTestdata(t, "gecko_processed.json")),
		`"address":[-1,4096,8192,-1,-1,10816],"inlineDepth":[0,0,0,0,0,0]`,
		`"address":[-1,4096,4096,-1,-1,10816],"inlineDepth":[0,0,1,0,0,0]`, 1)
	im, err := importer.Import("inl.json", []byte(data), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	_, f := importtest.Function(t, im.Spec, "libxul.so", "js::RunScript")
	if !f.Inline {
		t.Errorf("js::RunScript: %+v, want an inline function", f)
	}
	var found bool
	for _, th := range im.Spec.Processes[0].Threads {
		for _, s := range th.Stacks {
			if s.Frames[0] == "js::RunScript" {
				found = true
				if len(s.Inlined) != 1 || s.Inlined[0] != 1 {
					t.Errorf("stack %v: inlined %v, want [1] (the leaf inlined into ProcessNextEvent)", s.Frames, s.Inlined)
				}
			}
		}
	}
	if !found {
		t.Error("no stack with js::RunScript as its leaf")
	}
	if code := im.CodeFlat(); code["js::RunScript"] != 0 || code["nsThread::ProcessNextEvent"] <= 0 {
		t.Errorf("code flat %v: RunScript's samples run ProcessNextEvent's code", code)
	}
}

// TestGeckoProcessedOld reads a hand-made processed profile of the
// oldest layout (meta.version 3, no preprocessedProfileVersion, libs per
// thread): its libraries are named by their paths (POSIX and Windows),
// and their images by the paths' base names.
func TestGeckoProcessedOld(t *testing.T) {
	t.Parallel()
	im := importFile(t, "gecko_processed_old.json", importer.Options{})
	if got := strings.Join(sortStrings(importtest.ImageNames(im.Spec)), ","); got != "(no file),app.js,firefox,xul.dll" {
		t.Errorf("images %s, want (no file), app.js, firefox and xul.dll", got)
	}
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"0x200001004 <- 0x100000f84 <- (root)": 3, "0x100001a45 <- 0x100000f84 <- (root)": 2,
		"0x100000f84 <- (root)": 1, "frobnicate <- (root)": 1, "(root)": 1,
	})
}

// TestGeckoTableSizes: a table size the file cannot hold is an error
// naming the table, before anything is allocated for it (a processed
// frameTable of length 10^12 allocated 8 TB, 2^62 panicked in makeslice,
// samples.length 10^12 looped for ever, a schema position of -16
// indexed out of range).
func TestGeckoTableSizes(t *testing.T) {
	t.Parallel()
	processed := string(readTestdata(t, "gecko_processed.json"))
	for _, c := range []struct{ name, old, new, want string }{
		{"frameTable 10^12", `"frameTable":{"length":6`, `"frameTable":{"length":1000000000000`, "threads[0]: the frameTable says it has 1000000000000 rows, but its longest column holds 6 values"},
		{"frameTable 2^62", `"frameTable":{"length":6`, `"frameTable":{"length":4611686018427387904`, "the frameTable says it has 4611686018427387904 rows"},
		{"samples 10^12", `"samples":{"length":6`, `"samples":{"length":1000000000000`, "the samples table says it has 1000000000000 rows"},
		{"stackTable 7", `"stackTable":{"length":6`, `"stackTable":{"length":7`, "the stackTable says it has 7 rows, but its longest column holds 6"},
		{"funcTable", `"funcTable":{"length":6`, `"funcTable":{"length":99`, "the funcTable says it has 99 rows"},
	} {
		data := strings.Replace(processed, c.old, c.new, 1)
		if data == processed {
			t.Fatalf("%s: %q is not in the test file", c.name, c.old)
		}
		_, err := importer.Import("in.json", []byte(data), importer.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "in.json") {
			t.Errorf("%s: error %v, want one naming in.json and saying %q", c.name, err, c.want)
		}
	}
	gecko := `{"meta":{"version":20,"interval":1},"libs":[],"threads":[{"name":"T","pid":"1","tid":1,
"samples":{"schema":{"stack":0,"time":1},"data":[[0,1]]},
"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0]]},
"frameTable":{"schema":{"location":-16},"data":[[0]]},
"stringTable":["a"]}]}`
	_, err := importer.Import("in.json", []byte(gecko), importer.Options{})
	if want := `the schema puts column "location" at position -16`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("schema position -16: error %v, want one saying %q", err, want)
	}
}
