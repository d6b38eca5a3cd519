package jsonprof_test

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/jsonprof"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// nearWeights compares two weight maps to 1e-9 relative.
func nearWeights(t *testing.T, what string, got, want map[string]float64) {
	t.Helper()
	for k, w := range want {
		if !importtest.Near(got[k], w) {
			t.Errorf("%s %q: weight %v, want %v", what, k, got[k], w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s %q: weight %v, not in the source", what, k, g)
		}
	}
}

// sortStrings sorts s and returns it.
func sortStrings(s []string) []string {
	slices.Sort(s)
	return s
}

// TestCPUProfile reads hand-made .cpuprofile files whose weights are
// worked out by hand: a sample weighs the time to the next one (the last
// to endTime), "(root)" is dropped, unnamed functions are "(anonymous)"
// told apart by their line and column, busy is the samples' time over
// endTime − startTime.
func TestCPUProfile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file   string
		opt    importer.Options
		stacks map[string]float64
		busy   float64
		images []string
		period float64
	}{
		{"v8_small.cpuprofile", importer.Options{}, map[string]float64{
			"(anonymous) (10:5) <- main": 250,
			"(anonymous) (20:9) <- main": 50,
			"parse <- main":              200,
			"(program)":                  100,
			"(garbage collector)":        100,
			"(idle)":                     200,
		}, 0.9, []string{jsonprof.V8NativeImage, "main.js", "util.js"}, 114.29},
		{"v8_small.cpuprofile", importer.Options{DropIdle: true}, map[string]float64{
			"(anonymous) (10:5) <- main": 250,
			"(anonymous) (20:9) <- main": 50,
			"parse <- main":              200,
			"(program)":                  100,
			"(garbage collector)":        100,
		}, 0.7, nil, 114.29},
		// the old tree form: seconds, absolute timestamps
		{"v8_old.cpuprofile", importer.Options{}, map[string]float64{
			"work <- main": 3000,
			"(program)":    500,
		}, 0.875, []string{jsonprof.V8NativeImage, "main.js"}, 833.33},
	} {
		im := importFile(t, c.file, c.opt)
		if im.Format != importer.CPUProfile || im.SampleType != "wall/microseconds" || im.PeriodUnit != "microseconds" {
			t.Errorf("%s: format %s, sample type %s, period unit %s", c.file, im.Format, im.SampleType, im.PeriodUnit)
		}
		nearWeights(t, c.file, importtest.StackWeights(im.Spec), c.stacks)
		b := importtest.Busies(im.Spec)[c.file]
		if len(b) != 1 || !importtest.Near(b[0], c.busy) {
			t.Errorf("%s %+v: busy %v, want one thread of %v", c.file, c.opt, importtest.Busies(im.Spec), c.busy)
		}
		if c.images != nil && strings.Join(sortStrings(importtest.ImageNames(im.Spec)), ",") != strings.Join(sortStrings(c.images), ",") {
			t.Errorf("%s: images %v, want %v", c.file, importtest.ImageNames(im.Spec), c.images)
		}
		if !importtest.Near(im.Period, c.period) {
			t.Errorf("%s: period %v, want the mean interval %v", c.file, im.Period, c.period)
		}
		if c.opt.DropIdle && !strings.Contains(strings.Join(im.Notes, "\n"), "2 samples of \"(idle)\"") {
			t.Errorf("%s --drop-idle: notes %q do not count the 2 idle samples", c.file, im.Notes)
		}
		for _, img := range im.Spec.Images {
			for _, f := range img.Functions {
				if f.Size != profmodel.SyntheticSize || len(f.Hotspots) != 0 {
					t.Errorf("%s!%s: %d bytes, %d hotspots: want the synthetic layout", img.Name, f.Name, f.Size, len(f.Hotspots))
				}
			}
		}
	}
}

// TestCPUProfileNode reads a real `node --cpu-prof` profile of
// testdata/node_cpu.js (run as prog.js, the image's name): its
// JavaScript functions in their scripts, with the weights the file's own
// samples give them.
func TestCPUProfileNode(t *testing.T) {
	t.Parallel()
	im := importFile(t, "node_cpu.cpuprofile", importer.Options{Process: "node"})
	if im.Samples != 294 || im.Spec.Processes[0].Name != "node" {
		t.Errorf("%d samples, process %q; want 294 and node", im.Samples, im.Spec.Processes[0].Name)
	}
	leaf := importtest.LeafWeights(im.Spec)
	// heavy, reached from callerA three times as often as from callerB,
	// does most of the work; medium and light follow.
	if !(leaf["heavy"] > leaf["medium"] && leaf["medium"] > leaf["light"] && leaf["light"] > 0) {
		t.Errorf("leaf weights heavy %v, medium %v, light %v: want heavy > medium > light > 0", leaf["heavy"], leaf["medium"], leaf["light"])
	}
	var a, b float64
	for k, w := range importtest.StackWeights(im.Spec) {
		switch {
		case strings.HasPrefix(k, "heavy <- callerA"):
			a += w
		case strings.HasPrefix(k, "heavy <- callerB"):
			b += w
		}
	}
	if a < 2*b || b == 0 {
		t.Errorf("heavy through callerA %v, through callerB %v: want about 3:1", a, b)
	}
	if _, f := importtest.Function(t, im.Spec, "prog.js", "heavy"); f.Weight <= 0 {
		t.Errorf("heavy has weight %v in prog.js", f.Weight)
	}
	// the module wrapper and the arrow function of node_cpu.js are both
	// unnamed: told apart by where they start
	importtest.Function(t, im.Spec, "prog.js", "(anonymous) (1:1)")
	importtest.Function(t, im.Spec, "prog.js", "(anonymous) (7:112)")
	if b := importtest.Busies(im.Spec)["node"]; len(b) != 1 || b[0] < 0.9 || b[0] > 1 {
		t.Errorf("busy %v: node samples its one thread the whole time", b)
	}
}

// TestCPUProfileErrors: a damaged profile is an error naming the file
// and what is wrong, never a panic.
func TestCPUProfileErrors(t *testing.T) {
	t.Parallel()
	node := func(id, parent string) string {
		s := `{"id":` + id + `,"callFrame":{"functionName":"f` + id + `","url":"a.js"}`
		if parent != "" {
			s += `,"parent":` + parent
		}
		return s + `}`
	}
	for _, c := range []struct{ name, data, want string }{
		{"malformed id", `{"nodes":[{"id":1.5,"callFrame":{}}],"samples":[],"startTime":0}`, "in.prof:1: column"},
		{"string id", `{"nodes":[{"id":"x","callFrame":{}}],"samples":[],"startTime":0}`, "nodes.id is a string"},
		{"missing id", `{"nodes":[{"callFrame":{}}],"samples":[1],"timeDeltas":[1],"startTime":0}`, "node 1 of 1 has no id"},
		{"duplicate id", `{"nodes":[` + node("1", "") + `,` + node("1", "") + `],"samples":[1],"timeDeltas":[1],"startTime":0}`, "both have id 1"},
		{"unknown sample", `{"nodes":[` + node("1", "") + `],"samples":[1,7],"timeDeltas":[1,1],"startTime":0}`, "sample 2 of 2 names node 7"},
		{"deltas of the wrong length", `{"nodes":[` + node("1", "") + `],"samples":[1,1],"timeDeltas":[1],"startTime":0}`, "2 samples but 1 timeDeltas"},
		{"unknown parent", `{"nodes":[` + node("1", "9") + `],"samples":[1],"timeDeltas":[1],"startTime":0}`, "names parent 9"},
		{"unknown child", `{"nodes":[{"id":1,"callFrame":{},"children":[4]}],"samples":[1],"timeDeltas":[1],"startTime":0}`, "lists child 4"},
		{"cycle", `{"nodes":[` + node("1", "2") + `,` + node("2", "1") + `],"samples":[1],"timeDeltas":[1],"startTime":0}`, "its own ancestor"},
		{"two parents", `{"nodes":[{"id":1,"callFrame":{},"children":[3]},{"id":2,"callFrame":{},"children":[3]},` + node("3", "") + `],"samples":[3],"timeDeltas":[1],"startTime":0}`, "two parents"},
		{"truncated", `{"nodes":[` + node("1", "") + `],"samples":[1,1],"timeDel`, "truncated"},
		{"no nodes", `{"nodes":[],"samples":[],"startTime":0}`, "no nodes"},
		{"absurd times", `{"nodes":[` + node("1", "") + `],"samples":[1,1,1],"timeDeltas":[1e308,1e308,1e308],"startTime":0}`, "past what a float64 holds"},
		{"only idle", `{"nodes":[{"id":1,"callFrame":{"functionName":"(idle)"}}],"samples":[1],"timeDeltas":[1],"startTime":0,"endTime":5}`, "no sample is left"},
	} {
		opt := importer.Options{Format: importer.CPUProfile, DropIdle: c.name == "only idle"}
		_, err := importer.Import("in.prof", []byte(c.data), opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "in.prof:") {
			t.Errorf("%s: error %v, want one naming in.prof and saying %q", c.name, err, c.want)
		}
	}
}

// A workload file may be a profile: importer.Load imports a
// .cpuprofile as `proflab workload import --arch` would.
func TestLoadCPUProfile(t *testing.T) {
	t.Parallel()
	s, im, err := importer.Load(filepath.Join(testdata, "v8_small.cpuprofile"), "x86")
	if err != nil || im == nil || im.Format != importer.CPUProfile || len(s.Processes) != 1 {
		t.Fatalf("Load: %v, %+v", err, im)
	}
	if _, err := s.Resolve(x86); err != nil {
		t.Errorf("Resolve(x86): %v", err)
	}
}

// TestCPUProfileOutOfOrder: V8 can write a negative time delta; samples
// are taken in time order (as DevTools sorts them), and a note says so.
func TestCPUProfileOutOfOrder(t *testing.T) {
	t.Parallel()
	data := `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2,3]},{"id":2,"callFrame":{"functionName":"a","url":"x.js"}},{"id":3,"callFrame":{"functionName":"b","url":"x.js"}}],
"startTime":0,"endTime":100,"samples":[2,3,2],"timeDeltas":[10,40,-20]}`
	// times 10 (a), 50 (b), 30 (a): in order a@10, a@30, b@50
	im, err := importer.Import("ooo.cpuprofile", []byte(data), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{"a": 40, "b": 50})
	if !strings.Contains(strings.Join(im.Notes, "\n"), "negative time delta") {
		t.Errorf("notes %q do not mention the negative delta", im.Notes)
	}
}

// TestCPUProfileExtraDelta: node 10.11 wrote timeDeltas one longer than
// samples; the profile imports as the one without the last delta (as
// DevTools and speedscope read it), with a note. Two more is still
// damage.
func TestCPUProfileExtraDelta(t *testing.T) {
	t.Parallel()
	const nodes = `"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2,3]},{"id":2,"callFrame":{"functionName":"a","url":"a.js"}},{"id":3,"callFrame":{"functionName":"b","url":"a.js"}}]`
	profile := func(deltas string) []byte {
		return []byte(`{` + nodes + `,"samples":[2,3,2],"timeDeltas":[` + deltas + `],"startTime":0,"endTime":100}`)
	}
	want, err := importer.Import("in.cpuprofile", profile("10,20,30"), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := importer.Import("in.cpuprofile", profile("10,20,30,40"), importer.Options{})
	if err != nil {
		t.Fatalf("one delta more than samples: %v", err)
	}
	importtest.CheckInvariants(t, got)
	if g, w := importtest.LeafWeights(got.Spec), importtest.LeafWeights(want.Spec); !reflect.DeepEqual(g, w) {
		t.Errorf("weights %v, want %v (the profile without its last delta)", g, w)
	}
	if n := strings.Join(got.Notes, "\n"); !strings.Contains(n, "1 profiles have one timeDeltas entry more than samples (as node 10.11 wrote them)") {
		t.Errorf("notes %q do not say a delta was left out", got.Notes)
	}
	if _, err := importer.Import("in.cpuprofile", profile("10,20,30,40,50"), importer.Options{}); err == nil || !strings.Contains(err.Error(), "3 samples but 5 timeDeltas") {
		t.Errorf("two deltas more: error %v, want one saying 3 samples but 5 timeDeltas", err)
	}
}
