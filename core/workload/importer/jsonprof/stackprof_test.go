package jsonprof_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/jsonprof"
)

// TestStackprof reads a hand-made stackprof result: raw stacks (depth,
// frame ids root first, run length) weighed by their samples' timestamp
// deltas, two blocks of one name told apart by their line, the garbage
// collector's pseudo-frame kept as stackprof records it.
func TestStackprof(t *testing.T) {
	t.Parallel()
	im := importFile(t, "stackprof_small.json", importer.Options{})
	if im.Format != importer.Stackprof || im.Samples != 7 || im.SampleType != "cpu/microseconds" || im.Period != 1000 {
		t.Errorf("format %s, %d samples, type %s, period %v; want stackprof, 7, cpu/microseconds, 1000", im.Format, im.Samples, im.SampleType, im.Period)
	}
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"Object#work <- <main>":                             2200,
		"block in Object#work (4) <- Object#work <- <main>": 3000,
		"block in Object#work (9) <- Object#work <- <main>": 500,
		"(garbage collection)":                              2000,
	})
	if got := strings.Join(sortStrings(importtest.ImageNames(im.Spec)), ","); got != jsonprof.NoFileImage+",app.rb,main.rb" {
		t.Errorf("images %s", got)
	}
	if b := importtest.Busies(im.Spec)["stackprof_small.json"]; len(b) != 1 || b[0] != 1 {
		t.Errorf("busy %v, want one thread busy 1", importtest.Busies(im.Spec))
	}
}

// TestStackprofReal reads real results of testdata/stackprof.rb (Ruby
// 3.1, stackprof 0.2): cpu and wall mode with raw stacks, and cpu mode
// without (each frame's own samples, a note says the contexts are lost).
func TestStackprofReal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, note string
		raw        bool
	}{
		{"stackprof_cpu.json", "", true},
		{"stackprof_wall.json", "wall mode samples the program whether it runs or waits", true},
		{"stackprof_noraw.json", "no raw stacks", false},
	} {
		im := importFile(t, c.file, importer.Options{})
		leaf := importtest.LeafWeights(im.Spec)
		if leaf["Object#heavy"] <= 0 || leaf["Integer#times"] <= 0 {
			t.Errorf("%s: leaf weights %v: want Object#heavy and Integer#times", c.file, leaf)
		}
		deep := false
		for k := range importtest.StackWeights(im.Spec) {
			deep = deep || strings.Contains(k, "Object#caller_a <- Object#work")
		}
		if deep != c.raw {
			t.Errorf("%s: stacks through caller_a and work: %v, want %v", c.file, deep, c.raw)
		}
		if c.note != "" && !strings.Contains(strings.Join(im.Notes, "\n"), c.note) {
			t.Errorf("%s: notes %q do not say %q", c.file, im.Notes, c.note)
		}
	}
}

// TestStackprofErrors: damaged results are errors naming the file and
// what is wrong; object mode is imported with a warning.
func TestStackprofErrors(t *testing.T) {
	t.Parallel()
	frames := `"frames":{"1":{"name":"a","file":"x.rb","samples":1}}`
	for _, c := range []struct{ name, data, want string }{
		{"raw cut short", `{"mode":"cpu","interval":1000,` + frames + `,"raw":[3,1,1]}`, "raw is cut short"},
		{"unknown frame", `{"mode":"cpu","interval":1000,` + frames + `,"raw":[1,9,1]}`, "raw names frame 9"},
		{"deltas of the wrong length", `{"mode":"cpu","interval":1000,` + frames + `,"raw":[1,1,2],"raw_timestamp_deltas":[5]}`, "raw holds 2 samples but raw_timestamp_deltas has 1"},
		{"bad frame id", `{"mode":"cpu","interval":1000,"frames":{"x":{"name":"a"}},"raw":[]}`, `frames has key "x"`},
		{"no samples", `{"mode":"cpu","interval":1000,` + frames + `,"raw":[]}`, "no sample is left"},
		{"string interval", `{"mode":"cpu","interval":"fast",` + frames + `}`, "interval is a string"},
	} {
		_, err := importer.Import("in.json", []byte(c.data), importer.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "in.json") {
			t.Errorf("%s: error %v, want one naming in.json and saying %q", c.name, err, c.want)
		}
	}
	im, err := importer.Import("obj.json", []byte(`{"mode":"object","interval":10,`+frames+`,"raw":[1,1,4]}`), importer.Options{})
	if err != nil || len(im.Warnings) != 1 || im.Samples != 4 {
		t.Fatalf("object mode: %v %+v; want 4 samples and a warning", err, im)
	}
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{"a": 4})
}
