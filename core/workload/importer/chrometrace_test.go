package importer_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
)

// TestChromeTrace reads hand-made traces whose weights are worked out by
// hand: a Profile event and the ProfileChunk events of its pid and id
// (written by another thread) make one profile of the Profile's thread;
// processes are named by process_name, a shared name gets "#pid";
// threads are busy for their samples' time over the trace's span.
func TestChromeTrace(t *testing.T) {
	t.Parallel()
	im := importFile(t, "chrome_trace_small.json", importer.Options{})
	if im.Format != importer.ChromeTrace || im.Samples != 7 || !near(im.Period, 190) {
		t.Errorf("format %s, %d samples, period %v; want chrome-trace, 7, 190", im.Format, im.Samples, im.Period)
	}
	nearWeights(t, "stack", stackWeights(im.Spec), map[string]float64{
		"onload":         300,
		"(program)":      100,
		"draw <- onload": 500,
		"tick":           500,
	})
	b := busies(im.Spec)
	// the trace covers 500…2000 µs: 900 and 500 µs of samples
	if len(b) != 2 || len(b["Renderer"]) != 1 || !near(b["Renderer"][0], 0.6) || len(b["Renderer#20"]) != 1 || !near(b["Renderer#20"][0], 500.0/1500) {
		t.Errorf("busy %v: want Renderer [0.6] and Renderer#20 [0.333]", b)
	}
	if got := strings.Join(sortStrings(imageNames(im.Spec)), ","); got != "(native),app.js,worker.js" {
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
	equalWeights(t, "stack", stackWeights(ev.Spec), map[string]float64{"render": 40})
	if b := busies(ev.Spec)["pid 5"]; len(b) != 1 || !near(b[0], 0.8) {
		t.Errorf("CpuProfile event: busy %v, want pid 5 [0.8]", busies(ev.Spec))
	}

	// A trace cut short (its array not closed, its last event half
	// written) keeps the events before the cut, with a note.
	data := readTestdata(t, "chrome_trace_small.json")
	cut := data[:bytes.LastIndex(data, []byte(`{"pid":10,"tid":77,"ts":9000`))+40]
	tr, err := importer.Import("cut.json", cut, importer.Options{})
	if err != nil {
		t.Fatalf("a truncated trace: %v", err)
	}
	checkInvariants(t, tr)
	nearWeights(t, "stack", stackWeights(tr.Spec), stackWeights(im.Spec))
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
	leaf := leafWeights(im.Spec)
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
	equalWeights(t, "stack", stackWeights(im.Spec), map[string]float64{"tick": 300})
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

// TestChromeTraceErrors: damaged traces are errors naming the file and
// what is wrong.
func TestChromeTraceErrors(t *testing.T) {
	t.Parallel()
	profile := `{"pid":1,"tid":1,"ts":0,"ph":"P","name":"Profile","id":"0x1","args":{"data":{"startTime":0}}}`
	for _, c := range []struct{ name, data, want string }{
		{"no profile", `[{"pid":1,"tid":1,"ts":0,"ph":"X","name":"RunTask"}]`, "has no CPU profile"},
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
