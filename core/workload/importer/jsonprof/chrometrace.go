package jsonprof

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profread"
)

// ChromeTrace reads the Trace Event Format's JSON (an array of
// events, or an object whose "traceEvents" is one; the array may lack its
// closing bracket, as the format allows) for V8's sampling profiles:
// a "Profile" event (ph "P", an id, the profiled thread's pid and tid,
// args.data.startTime) and the "ProfileChunk" events of the same pid and
// id (args.data.cpuProfile.nodes with their parent's id, .samples,
// args.data.timeDeltas, perhaps args.data.endTime), written by V8's
// sampler thread; or an older trace's single "CpuProfile" event holding
// a whole profile. Chrome's Performance panel "Save profile" writes it,
// as do chrome://tracing and Node's inspector with the category
// disabled-by-default-v8.cpu_profiler.
//
// Each profile is read as a .cpuprofile is (see CPUProfile): the
// same weights, names and images. A process per pid, named by its
// "process_name" metadata event (else "pid N"; a name two processes share
// becomes "name#pid"); a thread per profiled (pid, tid), busy for its
// samples' time over the trace's wall span (from the earliest profile's
// start to the latest one's end: the profiles share the trace's clock).
// --process keeps the processes of that name. Every other event is
// skipped without being decoded.
var ChromeTrace = &profread.Format{
	Name:  "chrome-trace",
	About: "Chrome trace JSON holding V8's CPU profile (Profile/ProfileChunk or CpuProfile events): Chrome's Performance panel \"Save profile\", chrome://tracing, Node's inspector",
	Detect: func(c *profread.Content) (any, bool) {
		j := c.JSON()
		events := j.Kind == '[' && j.First.Has("ph", '"') || j.Has("traceEvents", '[')
		return nil, events && (hasProfileEvents(c.Data) || hasTraceSamples(j) || hasSpanEvents(c.Data))
	},
	Read: readChromeTrace,
}

// traceEvent is the part of a trace event the importer reads.
type traceEvent struct {
	Name string              `json:"name"`
	Ph   string              `json:"ph"`
	Pid  profread.FlexInt    `json:"pid"`
	Tid  profread.FlexInt    `json:"tid"`
	ID   profread.FlexString `json:"id"`
	Ts   profread.FlexFloat  `json:"ts"`
	Args json.RawMessage     `json:"args"`
}

// traceProfile is a profile of the trace being put together.
type traceProfile struct {
	pid, tid int64
	id       string
	at       int64 // the event's byte offset (its line is found for a message)
	p        v8Profile
	chunks   []traceChunk
}

// traceChunk is a ProfileChunk event's data.
type traceChunk struct {
	ts   float64
	at   int64 // the event's byte offset
	Data struct {
		CPUProfile struct {
			Nodes   []v8Node `json:"nodes"`
			Samples []int64  `json:"samples"`
		} `json:"cpuProfile"`
		TimeDeltas []float64 `json:"timeDeltas"`
		StartTime  *float64  `json:"startTime"`
		EndTime    *float64  `json:"endTime"`
	} `json:"data"`
}

// traceReader reads a trace's events.
type traceReader struct {
	r         *profread.Reading
	profiles  []*traceProfile
	byID      map[string]*traceProfile // by pid and id
	chunks    map[string][]traceChunk  // by pid and id
	procNames map[int64]string
	events    int
	truncated bool
	// spans says the trace has no CPU profile: its duration events are
	// read instead (chrometrace_spans.go).
	spans    bool
	spanEvs  []spanEvent
	asyncEvs int
}

// hasProfileEvents says whether a trace holds V8's CPU profile events.
func hasProfileEvents(data []byte) bool {
	return bytes.Contains(data, []byte(`"ProfileChunk"`)) || bytes.Contains(data, []byte(`"CpuProfile"`)) || bytes.Contains(data, []byte(`"Profile"`))
}

// readChromeTrace reads a Chrome trace's CPU profiles; in a trace
// without them, its samples and stack frames (chrometrace_samples.go),
// else its duration events (chrometrace_spans.go).
func readChromeTrace(r *profread.Reading) error {
	tr := &traceReader{r: r, byID: map[string]*traceProfile{}, chunks: map[string][]traceChunk{}, procNames: map[int64]string{}}
	tr.spans = !hasProfileEvents(r.Data)
	if tr.spans && hasTraceSamples(profread.SniffJSON(r.Data)) {
		return readTraceSamples(r)
	}
	if err := tr.read(); err != nil {
		return err
	}
	if !tr.spans && len(tr.profiles) == 0 && hasSpanEvents(r.Data) {
		// "Profile" was the name of something else (a span): read the
		// trace's duration events
		tr = &traceReader{r: r, procNames: map[int64]string{}, spans: true}
		if err := tr.read(); err != nil {
			return err
		}
	}
	if tr.spans {
		return tr.readSpans()
	}
	orphans := 0
	for key, cs := range tr.chunks {
		tp := tr.byID[key]
		if tp == nil {
			orphans += len(cs)
			continue
		}
		tp.chunks = cs
	}
	if len(tr.profiles) == 0 {
		return r.Errorf("the trace (%d events) has no CPU profile (no Profile event with its ProfileChunk events, no CpuProfile event): record with the Performance panel, or with the trace category disabled-by-default-v8.cpu_profiler", tr.events)
	}
	var names []string
	for _, tp := range tr.profiles {
		names = append(names, tr.processName(tp.pid))
	}
	keep, err := keepProcesses(r, names)
	if err != nil {
		return err
	}
	b := newSrcBuilder(r.Model)
	unique := uniqueProcessNames{}
	procName := map[int64]string{}
	var st v8Stats
	var empty []string
	for _, tp := range tr.profiles {
		base := tr.processName(tp.pid)
		if !keep(base) {
			continue
		}
		if err := tp.assemble(r); err != nil {
			return err
		}
		if len(tp.p.Nodes) == 0 && len(tp.p.Samples) == 0 {
			// a recording stopped before its first sample: Chrome writes
			// the Profile and a last ProfileChunk without data
			empty = append(empty, v8Where(tp.pid, tp.tid, tp.id))
			continue
		}
		pkey := strconv.FormatInt(tp.pid, 10)
		if _, ok := procName[tp.pid]; !ok {
			procName[tp.pid] = unique.name(base, pkey)
		}
		t := b.thread(pkey, procName[tp.pid], strconv.FormatInt(tp.tid, 10))
		if err := v8Import(r, b, &tp.p, t, v8Where(tp.pid, tp.tid, tp.id), &st); err != nil {
			return err
		}
	}
	if st.samples == 0 {
		if len(empty) > 0 && st.idle == 0 && st.zero == 0 {
			return r.Errorf("the trace's CPU profiles have no sample (%s): record for longer, or with the trace category disabled-by-default-v8.cpu_profiler on", strings.TrimSuffix(empty[0], ": "))
		}
		return r.Errorf("the trace's CPU profiles have no sample to import (%d idle samples dropped, %d of no time)", st.idle, st.zero)
	}
	if err := b.finish(r); err != nil {
		return err
	}
	v8Notes(r.Model, r.Sampling, &st)
	if len(empty) > 0 {
		r.Model.Note("%d CPU profiles of the trace have no node and no sample (a recording stopped before its first sample) and were skipped (the first: %s)", len(empty), strings.TrimSuffix(empty[0], ": "))
	}
	if orphans > 0 {
		r.Model.Note("%d ProfileChunk events belong to no Profile event of their pid and id and were skipped", orphans)
	}
	if tr.truncated {
		r.Model.Note("the trace ends without closing its array of events (the trace was cut short, or written as the format allows): the events before the end were read")
	}
	return nil
}

// processName is the name of pid: its process_name, else "pid N".
func (tr *traceReader) processName(pid int64) string {
	if n, ok := tr.procNames[pid]; ok && n != "" {
		return n
	}
	return fmt.Sprintf("pid %d", pid)
}

// read walks the trace's events, decoding only the profile and metadata
// events.
func (tr *traceReader) read() error {
	r := tr.r
	dec := json.NewDecoder(bytes.NewReader(r.Data))
	tok, err := dec.Token()
	if err != nil {
		return r.JSONError(r.Data, 0, err, "trace")
	}
	if tok == json.Delim('{') {
		if err := tr.toEvents(dec); err != nil {
			return err
		}
	} else if tok != json.Delim('[') {
		return r.Errorf("the JSON is not a trace: a trace is an array of events or an object with \"traceEvents\"")
	}
	var raw json.RawMessage
	for dec.More() {
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				tr.truncated = true
				return nil
			}
			return r.JSONError(r.Data, 0, err, "trace")
		}
		tr.events++
		end := dec.InputOffset()
		start := end - int64(len(raw))
		if err := tr.event(raw, start); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			tr.truncated = true
			return nil
		}
		return r.JSONError(r.Data, 0, err, "trace")
	}
	return nil
}

// toEvents moves dec, inside the top-level object, to the start of the
// traceEvents array's elements.
func (tr *traceReader) toEvents(dec *json.Decoder) error {
	r := tr.r
	var skip json.RawMessage
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return r.JSONError(r.Data, 0, err, "trace")
		}
		if key == "traceEvents" {
			tok, err := dec.Token()
			if err != nil {
				return r.JSONError(r.Data, 0, err, "trace")
			}
			if tok != json.Delim('[') {
				return r.Errorf("\"traceEvents\" is not an array of events")
			}
			return nil
		}
		if err := dec.Decode(&skip); err != nil {
			return r.JSONError(r.Data, 0, err, "trace")
		}
	}
	return r.Errorf("the JSON object has no \"traceEvents\": a trace is an array of events or an object with \"traceEvents\"")
}

// event reads one event (raw, at byte start of the file) when it is a
// profile or metadata event.
func (tr *traceReader) event(raw []byte, start int64) error {
	if tr.spans {
		return tr.spanEvent(raw, start)
	}
	if !bytes.Contains(raw, []byte(`Profile`)) && !bytes.Contains(raw, []byte(`process_name`)) {
		return nil
	}
	r := tr.r
	var ev traceEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return r.JSONError(raw, start, err, "trace")
	}
	line := func() int { l, _ := r.LineCol(start); return l }
	base := start // where args starts, for the errors in it
	if k := bytes.Index(raw, ev.Args); k >= 0 {
		base += int64(k)
	}
	key := fmt.Sprintf("%d %s", ev.Pid.Value, ev.ID)
	switch ev.Name {
	case "process_name":
		var a struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(ev.Args, &a) == nil {
			tr.procNames[ev.Pid.Value] = a.Name
		}
	case "Profile":
		if ev.Ph != "P" && ev.Ph != "" {
			return nil // a span or mark of that name, not V8's profile
		}
		var a struct {
			Data struct {
				StartTime *float64 `json:"startTime"`
			} `json:"data"`
		}
		if err := tr.args(ev.Args, &a, base, start); err != nil {
			return err
		}
		if tp := tr.byID[key]; tp != nil {
			first, _ := r.LineCol(tp.at)
			return r.LineErrorf(line(), "a second Profile event of pid %d with id %s (the first is at line %d): profile ids are unique per process", ev.Pid.Value, ev.ID, first)
		}
		tp := &traceProfile{pid: ev.Pid.Value, tid: ev.Tid.Value, id: string(ev.ID), at: start}
		tp.p.StartTime = a.Data.StartTime
		tr.byID[key] = tp
		tr.profiles = append(tr.profiles, tp)
	case "ProfileChunk":
		c := traceChunk{ts: ev.Ts.Value, at: start}
		if err := tr.args(ev.Args, &c, base, start); err != nil {
			return err
		}
		tr.chunks[key] = append(tr.chunks[key], c)
	case "CpuProfile":
		var a struct {
			Data struct {
				CPUProfile *v8Profile `json:"cpuProfile"`
			} `json:"data"`
		}
		if err := tr.args(ev.Args, &a, base, start); err != nil {
			return err
		}
		if a.Data.CPUProfile == nil {
			return r.LineErrorf(line(), "the CpuProfile event has no args.data.cpuProfile")
		}
		tp := &traceProfile{pid: ev.Pid.Value, tid: ev.Tid.Value, id: fmt.Sprintf("at line %d", line()), at: start, p: *a.Data.CPUProfile}
		tr.profiles = append(tr.profiles, tp)
	}
	return nil
}

// args decodes the args of the event at byte start of the file (args at
// byte base) into v.
func (tr *traceReader) args(args json.RawMessage, v any, base, start int64) error {
	if len(args) == 0 {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			te.Field = "args." + te.Field
		}
		line, _ := tr.r.LineCol(start)
		return tr.r.JSONError(args, base, err, fmt.Sprintf("trace event at line %d", line))
	}
	return nil
}

// assemble puts the profile's chunks together (in time order): their
// nodes, samples and time deltas, the start and end times they give.
func (tp *traceProfile) assemble(r *profread.Reading) error {
	slices.SortStableFunc(tp.chunks, func(a, b traceChunk) int { return cmp.Compare(a.ts, b.ts) })
	for _, c := range tp.chunks {
		d := c.Data
		if len(d.CPUProfile.Samples) != len(d.TimeDeltas) {
			line, _ := r.LineCol(c.at)
			return r.LineErrorf(line, "the ProfileChunk of pid %d, id %s has %d samples but %d timeDeltas: each sample has its time delta; the trace is damaged", tp.pid, tp.id, len(d.CPUProfile.Samples), len(d.TimeDeltas))
		}
		tp.p.Nodes = append(tp.p.Nodes, d.CPUProfile.Nodes...)
		tp.p.Samples = append(tp.p.Samples, d.CPUProfile.Samples...)
		tp.p.TimeDeltas = append(tp.p.TimeDeltas, d.TimeDeltas...)
		if d.StartTime != nil {
			tp.p.StartTime = d.StartTime
		}
		if d.EndTime != nil {
			tp.p.EndTime = d.EndTime
		}
	}
	tp.chunks = nil
	return nil
}
