package jsonprof_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/jsonprof"
)

// TestSpeedscope reads hand-made files written per speedscope's schema:
// a sampled profile in milliseconds and an evented one in microseconds
// (times are converted to microseconds and add up), frames of one name
// in one file are one function, each profile is a thread, busy for its
// weight over the longest span.
func TestSpeedscope(t *testing.T) {
	t.Parallel()
	im := importFile(t, "speedscope_small.json", importer.Options{})
	if im.Format != importer.Speedscope || im.SampleType != "time/microseconds" || im.Samples != 8 || im.Period != 0 {
		t.Errorf("format %s, sample type %s, %d samples, period %v; want speedscope, time/microseconds, 8, 0 (the weights vary)", im.Format, im.SampleType, im.Samples, im.Period)
	}
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"compute <- main":  8000, // 2 ms + 3 ms sampled at two lines, 3 ms evented
		"io_wait <- main":  1000,
		"<native>":         1000,
		"main":             2000,
		"<native> <- main": 1000,
	})
	b := importtest.Busies(im.Spec)["speedscope_small.json"]
	if len(b) != 2 || !importtest.Near(b[0], 0.35) || !importtest.Near(b[1], 0.3) {
		t.Errorf("busy %v, want two threads of one process, 7 ms and 6 ms of 20 ms", importtest.Busies(im.Spec))
	}
	if got := strings.Join(sortStrings(importtest.ImageNames(im.Spec)), ","); got != jsonprof.NoFileImage+",main.py,selectors.py" {
		t.Errorf("images %s", got)
	}
	notes := strings.Join(im.Notes, "\n")
	if !strings.Contains(notes, "1 samples with no frame were dropped") || strings.Contains(notes, "weight 0") {
		t.Errorf("notes %q: want the empty sample counted, and no zero-length interval", im.Notes)
	}

	// py-spy's names give the processes
	py := importFile(t, "speedscope_pyspy.json", importer.Options{Process: "app"})
	b2 := importtest.Busies(py.Spec)
	if len(b2) != 2 || len(b2["app (pid 100)"]) != 1 || !importtest.Near(b2["app (pid 100)"][0], 1) || !importtest.Near(b2["app (pid 200)"][0], 0.5) {
		t.Errorf("py-spy processes %v: want app (pid 100) busy 1 and app (pid 200) busy 0.5", b2)
	}
	nearWeights(t, "stack", importtest.StackWeights(py.Spec), map[string]float64{"spin <- <module>": 50000, "sleep <- <module>": 10000})
	if !importtest.Near(py.Period, 10000) || py.PeriodUnit != "microseconds" {
		t.Errorf("period %v %s, want py-spy's 10000 microseconds", py.Period, py.PeriodUnit)
	}
}

// TestSpeedscopeErrors: damaged files are errors naming the file and
// what is wrong.
func TestSpeedscopeErrors(t *testing.T) {
	t.Parallel()
	file := func(frames, profiles string) string {
		return `{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[` + frames + `]},"profiles":[` + profiles + `]}`
	}
	fr := `{"name":"a"},{"name":"b"}`
	for _, c := range []struct{ name, data, want string }{
		{"weights of the wrong length", file(fr, `{"type":"sampled","name":"p","unit":"none","samples":[[0],[1]],"weights":[1]}`), "2 samples but 1 weights"},
		{"unknown frame", file(fr, `{"type":"sampled","name":"p","unit":"none","samples":[[0,7]],"weights":[1]}`), "sample 0 names frame 7; shared.frames has 2"},
		{"negative weight", file(fr, `{"type":"sampled","name":"p","unit":"none","samples":[[0]],"weights":[-1]}`), "weight -1"},
		{"unbalanced close", file(fr, `{"type":"evented","name":"p","unit":"none","events":[{"type":"O","frame":0,"at":0},{"type":"C","frame":1,"at":1}]}`), "closes frame 1 (b), which is not the innermost open frame"},
		{"never closed", file(fr, `{"type":"evented","name":"p","unit":"none","events":[{"type":"O","frame":0,"at":0}]}`), "ends with 1 frames open"},
		{"time going back", file(fr, `{"type":"evented","name":"p","unit":"none","events":[{"type":"O","frame":0,"at":5},{"type":"C","frame":0,"at":1}]}`), "before the event before it"},
		{"unknown type", file(fr, `{"type":"heap","name":"p","unit":"none"}`), `type "heap"`},
		{"mixed units", file(fr, `{"type":"sampled","name":"p","unit":"seconds","samples":[[0]],"weights":[1]},{"type":"sampled","name":"q","unit":"bytes","samples":[[0]],"weights":[1]}`), "cannot be added"},
		{"unknown unit", file(fr, `{"type":"sampled","name":"p","unit":"furlongs","samples":[[0]],"weights":[1]}`), `unit "furlongs"`},
		{"no profiles", file(fr, ``), "no profiles"},
		{"absurd weights", file(fr, `{"type":"sampled","name":"p","unit":"seconds","samples":[[0]],"weights":[1e308]}`), "past what a float64 holds"},
		{"nameless frame", file(`{"file":"x"}`, `{"type":"sampled","name":"p","unit":"none","samples":[[0]],"weights":[1]}`), "frame 0 of shared.frames has no name"},
	} {
		_, err := importer.Import("in.json", []byte(c.data), importer.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "in.json") {
			t.Errorf("%s: error %v, want one naming in.json and saying %q", c.name, err, c.want)
		}
	}
	// a profile of bytes is imported, with a warning
	im, err := importer.Import("heap.json", []byte(file(fr, `{"type":"sampled","name":"p","unit":"bytes","samples":[[0,1]],"weights":[4096]}`)), importer.Options{})
	if err != nil || len(im.Warnings) != 1 || !strings.Contains(im.Warnings[0], "bytes") {
		t.Errorf("a bytes profile: %v, warnings %v; want one warning about bytes", err, im)
	}
}
