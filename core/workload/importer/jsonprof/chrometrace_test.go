package jsonprof_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// TestChromeTrace reads hand-made traces whose weights are worked out by
// hand: a Profile event and the ProfileChunk events of its pid and id
// (written by another thread) make one profile of the Profile's thread;
// processes are named by process_name, a shared name gets "#pid";
// threads are busy for their samples' time over the trace's span.
func TestChromeTrace(t *testing.T) {
	t.Parallel()
	im := importFile(t, "chrome_trace_small.json", importer.Options{})
	if im.Format != importer.ChromeTrace || im.Samples != 7 || !importtest.Near(im.Period, 190) {
		t.Errorf("format %s, %d samples, period %v; want chrome-trace, 7, 190", im.Format, im.Samples, im.Period)
	}
	nearWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"onload":         300,
		"(program)":      100,
		"draw <- onload": 500,
		"tick":           500,
	})
	b := importtest.Busies(im.Spec)
	// the trace covers 500…2000 µs: 900 and 500 µs of samples
	if len(b) != 2 || len(b["Renderer"]) != 1 || !importtest.Near(b["Renderer"][0], 0.6) || len(b["Renderer#20"]) != 1 || !importtest.Near(b["Renderer#20"][0], 500.0/1500) {
		t.Errorf("busy %v: want Renderer [0.6] and Renderer#20 [0.333]", b)
	}
	if got := strings.Join(sortStrings(importtest.ImageNames(im.Spec)), ","); got != "(native),app.js,worker.js" {
		t.Errorf("images %s", got)
	}
	if !strings.Contains(strings.Join(im.Notes, "\n"), "1 ProfileChunk events belong to no Profile") {
		t.Errorf("notes %q do not count the orphan chunk", im.Notes)
	}
	// --process keeps the processes of that name
	if only, err := importer.Import("t.json", readTestdata(t, "chrome_trace_small.json"), importer.Options{Process: "Renderer"}); err != nil || len(only.Spec.Processes) != 2 {
		t.Errorf("--process Renderer: %v, want both Renderer processes", err)
	}
	if _, err := importer.Import("t.json", readTestdata(t, "chrome_trace_small.json"), importer.Options{Process: "Browser"}); err == nil || !strings.Contains(err.Error(), "the file has Renderer") {
		t.Errorf("--process Browser: %v, want an error listing Renderer", err)
	}

	// The older single CpuProfile event, in an object with traceEvents.
	ev := importFile(t, "chrome_trace_cpuprofile_event.json", importer.Options{})
	importtest.EqualWeights(t, "stack", importtest.StackWeights(ev.Spec), map[string]float64{"render": 40})
	if b := importtest.Busies(ev.Spec)["pid 5"]; len(b) != 1 || !importtest.Near(b[0], 0.8) {
		t.Errorf("CpuProfile event: busy %v, want pid 5 [0.8]", importtest.Busies(ev.Spec))
	}

	// A trace cut short (its array not closed, its last event half
	// written) keeps the events before the cut, with a note.
	data := readTestdata(t, "chrome_trace_small.json")
	cut := data[:bytes.LastIndex(data, []byte(`{"pid":10,"tid":77,"ts":9000`))+40]
	tr, err := importer.Import("cut.json", cut, importer.Options{})
	if err != nil {
		t.Fatalf("a truncated trace: %v", err)
	}
	importtest.CheckInvariants(t, tr)
	nearWeights(t, "stack", importtest.StackWeights(tr.Spec), importtest.StackWeights(im.Spec))
	if !strings.Contains(strings.Join(tr.Notes, "\n"), "without closing its array") {
		t.Errorf("notes %q do not say the trace was cut", tr.Notes)
	}
}

// TestChromeTraceNode reads a real trace of Node's inspector
// (testdata/node_trace.js): V8's sampler writes the chunks from its own
// thread, and the profile is the main thread's.
func TestChromeTraceNode(t *testing.T) {
	t.Parallel()
	im := importFile(t, "node_trace.json", importer.Options{})
	if im.Samples != 701 || len(im.Spec.Processes) != 1 || im.Spec.Processes[0].Name != "node" || len(im.Spec.Processes[0].Threads) != 1 {
		t.Fatalf("%d samples, processes %+v; want 701 samples of node's one profiled thread", im.Samples, im.Spec.Processes)
	}
	leaf := importtest.LeafWeights(im.Spec)
	var total float64
	for _, w := range leaf {
		total += w
	}
	if leaf["heavy"] < total/2 {
		t.Errorf("heavy %v of %v: the traced loop spends most of its time there", leaf["heavy"], total)
	}
}

// TestChromeTraceEmptyProfile: Chrome writes a Profile event and a last
// ProfileChunk without args.data for a recording stopped before its
// first sample (and a data-less last chunk after a recording's samples):
// the empty profile is skipped with a note, the others are read.
func TestChromeTraceEmptyProfile(t *testing.T) {
	t.Parallel()
	im := importFile(t, "chrome_trace_empty_profile.json", importer.Options{})
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{"tick": 300})
	if !strings.Contains(strings.Join(im.Notes, "\n"), "1 CPU profiles of the trace have no node and no sample") {
		t.Errorf("notes %q do not count the empty profile", im.Notes)
	}
	// a trace whose only profile is empty is an error saying so
	data := readTestdata(t, "chrome_trace_empty_profile.json")
	only := bytes.Replace(data, []byte(`"samples":[2,2,2]},"timeDeltas":[100,100,100]`), []byte(`"samples":[]},"timeDeltas":[]`), 1)
	only = bytes.Replace(only, []byte(`"nodes":[{"callFrame"`), []byte(`"x":[{"callFrame"`), 1)
	if _, err := importer.Import("e.json", only, importer.Options{}); err == nil || !strings.Contains(err.Error(), "have no sample") {
		t.Errorf("a trace of empty profiles: %v, want an error saying they have no sample", err)
	}
}

// TestChromeTraceSpans reads a hand-made trace without a CPU profile:
// its duration events nest into stacks per thread, each weighing the
// time its innermost span was open (µs), worked out by hand. X events at
// one time nest the longer outside; an E closes the innermost open B
// whatever its name; a B never closed ends at its thread's last time;
// spans of length 0 and async events weigh nothing; timestamps may be
// strings.
func TestChromeTraceSpans(t *testing.T) {
	t.Parallel()
	im := importFile(t, "chrome_trace_spans.json", importer.Options{})
	if im.Format != importer.ChromeTrace || im.SampleType != "wall/microseconds" || im.Samples != 100+180 {
		t.Errorf("format %s, sample type %q, %d samples; want chrome-trace, wall/microseconds, 280 (the µs of the threads' stacks)", im.Format, im.SampleType, im.Samples)
	}
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		// thread 1: main 0…100, parse 10…40 holding lex 10…20, emit 40…70
		"main": 40, "parse <- main": 20, "lex <- parse <- main": 10, "emit <- main": 30,
		// thread 2: an E at 10 that closes nothing; worker from 20, never
		// closed (it ends at the thread's last time, 200); job 30…50 (its
		// E names another span: it closes the innermost all the same);
		// tail 60…200
		"worker": 20, "job <- worker": 20, "tail <- worker": 140,
	})
	b := importtest.Busies(im.Spec)["compiler"]
	// the trace's spans cover 0…200 µs: 100 and 180 µs of the threads'
	if len(b) != 2 || !importtest.Near(b[0], 0.5) || !importtest.Near(b[1], 0.9) {
		t.Errorf("busy %v, want [0.5 0.9]", importtest.Busies(im.Spec))
	}
	// a span named "Profile" is a span, not V8's Profile event
	named := `[{"pid":1,"tid":1,"ph":"X","name":"Profile","ts":0,"dur":10},{"pid":1,"tid":1,"ph":"X","name":"Load","ts":10,"dur":5}]`
	if p, err := importer.Import("named.json", []byte(named), importer.Options{}); err != nil {
		t.Errorf("a trace with a span named Profile: %v", err)
	} else {
		importtest.EqualWeights(t, "named stack", importtest.StackWeights(p.Spec), map[string]float64{"Profile": 10, "Load": 5})
	}
	notes := strings.Join(im.Notes, "\n")
	for _, want := range []string{"instrumented profile", "1 E events closed no open B", "1 E events name another span", "1 B events were never closed", "1 async and flow events"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q do not say %q", im.Notes, want)
		}
	}
}

// TestChromeTraceSamples reads a hand-made trace of Hermes' form: samples
// naming their innermost stack frame, the frames their parents (a
// JavaScript frame named `name(url:line:column)` is the function name in
// the url's image); a sample
// weighs the time to its thread's next one (the last, the thread's mean
// interval), timestamps written as strings.
func TestChromeTraceSamples(t *testing.T) {
	t.Parallel()
	im := importFile(t, "chrome_trace_samples.json", importer.Options{})
	if im.Format != importer.ChromeTrace || im.Samples != 5 {
		t.Errorf("format %s, %d samples; want chrome-trace, 5 (a sample of a bare root frame is one too)", im.Format, im.Samples)
	}
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"render <- [root]": 100 + 200, "[GC Young Gen] <- [root]": 100, "[root]": 400.0 / 3,
		// thread 2's one sample: 1 µs
		"[root thread 2]": 1,
	})
	if got := strings.Join(sortStrings(importtest.ImageNames(im.Spec)), ","); got != "(no file),index.bundle" {
		t.Errorf("images %s, want (no file) and index.bundle (the url in Hermes' frame name)", got)
	}
	if p := im.Spec.Processes; len(p) != 1 || p[0].Name != "hermes" || len(p[0].Threads) != 2 {
		t.Errorf("processes %+v, want hermes with two threads", p)
	}
}

// TestChromeTraceErrors: damaged traces are errors naming the file and
// what is wrong.
func TestChromeTraceErrors(t *testing.T) {
	t.Parallel()
	profile := `{"pid":1,"tid":1,"ts":0,"ph":"P","name":"Profile","id":"0x1","args":{"data":{"startTime":0}}}`
	for _, c := range []struct{ name, data, want string }{
		{"no profile", `[{"pid":1,"tid":1,"ts":0,"ph":"i","name":"mark"}]`, "without a CPU profile"},
		{"spans of no time", `[{"pid":1,"tid":1,"ts":0,"ph":"X","name":"RunTask"}]`, "hold no time"},
		{"deltas of the wrong length", `[` + profile + `,
{"pid":1,"tid":2,"ts":1,"ph":"P","name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"f"}}],"samples":[1,1]},"timeDeltas":[5]}}}]`, "in.json:2: the ProfileChunk of pid 1, id 0x1 has 2 samples but 1 timeDeltas"},
		{"unknown node", `[` + profile + `,
{"pid":1,"tid":2,"ts":1,"ph":"P","name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"f"}}],"samples":[3]},"timeDeltas":[5]}}}]`, "the profile 0x1 of pid 1, tid 1: sample 1 of 1 names node 3"},
		{"bad node id", `[` + profile + `,
{"pid":1,"tid":2,"ts":1,"ph":"P","name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":{"nodes":[{"id":"one","callFrame":{"functionName":"f"}}],"samples":[3]},"timeDeltas":[5]}}}]`, "in.json:2: column"},
		{"duplicate profile", `[` + profile + `,` + profile + `]`, "a second Profile event"},
		{"not events", `{"traceEvents":{"a":1}}`, "not an array"},
		{"malformed", `[` + profile + `,{"pid":]`, "not valid JSON"},
	} {
		_, err := importer.Import("in.json", []byte(c.data), importer.Options{Format: importer.ChromeTrace})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// TestChromeTraceDeepSpans: a thread of more nested spans than
// maxSpanDepth keeps the innermost 256 in its stacks, with a note: the
// leaf's time is whole, the outermost callers are cut.
func TestChromeTraceDeepSpans(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("[")
	for i := range 300 {
		fmt.Fprintf(&b, `{"pid":1,"tid":1,"ph":"B","name":"f%d","ts":%d},`, i, i)
	}
	b.WriteString(`{"pid":1,"tid":1,"ph":"E","ts":1000}]`)
	im, err := importer.Import("deep.json", []byte(b.String()), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	leaf := importtest.LeafWeights(im.Spec)
	if !importtest.Near(leaf["f299"], 701) || len(importtest.NotesWith(im, "more than 256 nested spans")) != 1 {
		t.Errorf("f299 %v µs (want 701), notes %q", leaf["f299"], im.Notes)
	}
	for _, p := range im.Spec.Processes {
		for _, th := range p.Threads {
			for _, s := range th.Stacks {
				if len(s.Frames) > 256 {
					t.Fatalf("a stack of %d frames, want at most 256", len(s.Frames))
				}
			}
		}
	}
}

// TestChromeTraceErrorLines: the events' lines, found only when a
// message needs them, are those of the events: a chunk whose samples
// and time deltas differ, a second Profile event of an id (with the
// first's line), a bad args value; all events on one line, that line.
func TestChromeTraceErrorLines(t *testing.T) {
	t.Parallel()
	profile := `{"pid":1,"tid":1,"ts":0,"ph":"P","name":"Profile","id":"0x1","args":{"data":{"startTime":0}}}`
	chunk := `{"pid":1,"tid":2,"ts":1,"ph":"P","name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}],"samples":[1]},"timeDeltas":[1]}}}`
	bad := `{"pid":1,"tid":2,"ts":2,"ph":"P","name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":{"samples":[1,1]},"timeDeltas":[1]}}}`
	badArgs := `{"pid":1,"tid":2,"ts":2,"ph":"P","name":"ProfileChunk","id":"0x1","args":{"data":{"timeDeltas":"x"}}}`
	for _, c := range []struct {
		name   string
		events []string
		sep    string
		want   string
	}{
		{"chunk, lines", []string{profile, chunk, chunk, bad}, ",\n", "in.json:5: the ProfileChunk of pid 1, id 0x1 has 2 samples but 1 timeDeltas"},
		{"chunk, one line", []string{profile, chunk, chunk, bad}, ",", "in.json:2: the ProfileChunk of pid 1, id 0x1 has 2 samples"},
		{"second profile", []string{chunk, profile, chunk, profile}, ",\n", "in.json:5: a second Profile event of pid 1 with id 0x1 (the first is at line 3)"},
		{"bad args", []string{profile, chunk, badArgs}, ",\n", "in.json:4: column 99: args.data.timeDeltas is a string"},
	} {
		data := "{\"traceEvents\":[\n" + strings.Join(c.events, c.sep) + "]}"
		_, err := importer.Import("in.json", []byte(data), importer.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
