package jsonprof

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// A Chrome trace without a CPU profile still says where its threads
// spent their time when it holds duration events: "B"egin and "E"nd
// events (an E closes the thread's innermost open B, as the Trace Event
// Format says) and "X" complete events (a begin and a duration). Tracing
// instrumentations write them: chrome://tracing and Perfetto's JSON
// export, Node's --trace-events, clang's -ftime-trace, Python's
// viztracer, Rust's tracing-chrome, Hermes' and many others'.
//
// Per thread (pid, tid), the spans nest into stacks: at each moment the
// stack is the open spans, outermost first (ordered by start, then the
// longer first). Each stack weighs the time it stays on top, in
// microseconds (sample type "wall/microseconds"): the spans' own time,
// wall time waiting included, measured rather than sampled, so the
// sample count is the total in microseconds and the period unknown.
// Functions are the events' names, in the image NoFileImage; processes
// and threads as for the CPU profiles, busy for their stacks' time over
// the trace's span (its first span's start to its last span's end).

// spanEvent is a duration event of a trace: B, E or X.
type spanEvent struct {
	pid, tid int64
	ph       byte
	name     string
	ts, dur  float64
	seq      int
}

// spanPh finds the duration events' phases.
var spanPh = regexp.MustCompile(`"ph"\s*:\s*"[BEX]"`)

// hasSpanEvents says whether a trace holds duration events.
func hasSpanEvents(data []byte) bool { return spanPh.Match(data) }

// spanEvent reads one event (raw, at byte start of the file) of a trace
// read for its duration events: B, E, X and process_name.
func (tr *traceReader) spanEvent(raw []byte, start int64) error {
	if !bytes.Contains(raw, []byte(`"ph"`)) {
		return nil
	}
	var ev struct {
		traceEvent
		Dur profread.FlexFloat `json:"dur"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return tr.r.JSONError(raw, start, err, "trace")
	}
	se := spanEvent{pid: ev.Pid.Value, tid: ev.Tid.Value, name: ev.Name, ts: ev.Ts.Value, seq: len(tr.spanEvs)}
	switch ev.Ph {
	case "M":
		if ev.Name == "process_name" {
			var a struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(ev.Args, &a) == nil {
				tr.procNames[ev.Pid.Value] = a.Name
			}
		}
	case "B", "E":
		se.ph = ev.Ph[0]
		tr.spanEvs = append(tr.spanEvs, se)
	case "X":
		se.ph = 'X'
		se.dur = ev.Dur.Value
		tr.spanEvs = append(tr.spanEvs, se)
	case "b", "e", "n", "S", "T", "p", "F":
		tr.asyncEvs++
	}
	return nil
}

// traceSpan is a begin–end interval of a thread's trace.
type traceSpan struct {
	name       string
	start, end float64
	seq        int
}

// spanStats counts what reading the spans left out or mended.
type spanStats struct {
	orphanEnds, unclosed, mismatched, negative, idle, deep int
}

// maxSpanDepth bounds a stack of spans, innermost kept: a thread of N
// nested spans would otherwise make stacks of N² frames in all. It is
// the bound every tree-shaped format shares, profmodel.MaxStackDepth.
const maxSpanDepth = profmodel.MaxStackDepth

// readSpans turns the trace's duration events into r.Model's stacks.
func (tr *traceReader) readSpans() error {
	r := tr.r
	if len(tr.spanEvs) == 0 {
		return r.Errorf("the file is a Chrome trace (%d events) without a CPU profile (no Profile/ProfileChunk or CpuProfile event) and without duration events (B/E or X) to weigh: record with the Performance panel, or with the trace category disabled-by-default-v8.cpu_profiler", tr.events)
	}
	type tkey struct{ pid, tid int64 }
	var order []tkey
	byThread := map[tkey][]spanEvent{}
	for _, e := range tr.spanEvs {
		k := tkey{e.pid, e.tid}
		if _, ok := byThread[k]; !ok {
			order = append(order, k)
		}
		byThread[k] = append(byThread[k], e)
	}
	var names []string
	for _, k := range order {
		names = append(names, tr.processName(k.pid))
	}
	keep, err := keepProcesses(r, names)
	if err != nil {
		return err
	}
	b := newSrcBuilder(r.Model)
	img := b.fileImage("")
	unique := uniqueProcessNames{}
	procName := map[int64]string{}
	var st spanStats
	var total float64
	var frames []int
	for _, k := range order {
		base := tr.processName(k.pid)
		if !keep(base) {
			continue
		}
		spans := threadSpans(byThread[k], &st)
		if len(spans) == 0 {
			continue
		}
		pkey := strconv.FormatInt(k.pid, 10)
		if _, ok := procName[k.pid]; !ok {
			procName[k.pid] = unique.name(base, pkey)
		}
		t := b.thread(pkey, procName[k.pid], strconv.FormatInt(k.tid, 10))
		for _, s := range spans {
			b.cover(s.start, s.end)
		}
		sweepSpans(spans, func(stack []traceSpan, w float64) {
			if r.Options.DropIdle && srcIdle(stack[len(stack)-1].name) {
				st.idle++
				return
			}
			outer := 0
			if len(stack) > maxSpanDepth {
				outer = len(stack) - maxSpanDepth
				st.deep++
			}
			frames = frames[:0]
			for i := len(stack) - 1; i >= outer; i-- {
				frames = append(frames, b.fn(srcFunc{img: img, name: stack[i].name}))
			}
			b.add(t, frames, w)
			total += w
		})
	}
	if total <= 0 {
		return r.Errorf("the trace's duration events (%d) hold no time to weigh (every span of length 0, or dropped)", len(tr.spanEvs))
	}
	if err := b.finish(r); err != nil {
		return err
	}
	m, im := r.Model, r.Sampling
	im.SampleType = "wall/microseconds"
	im.Samples = int64(math.Max(1, math.Round(total)))
	m.Note("the trace has no CPU profile: its duration events (B/E, X) are read as an instrumented profile, each stack weighing the time its innermost span was open (wall time, waiting included): measured, not sampled, so the sample count is the total in microseconds")
	if st.orphanEnds > 0 {
		m.Note("%d E events closed no open B event of their thread and were skipped", st.orphanEnds)
	}
	if st.mismatched > 0 {
		m.Note("%d E events name another span than the innermost open one, which they close (as the Trace Event Format says)", st.mismatched)
	}
	if st.unclosed > 0 {
		m.Note("%d B events were never closed: they end at their thread's last event", st.unclosed)
	}
	if st.negative > 0 {
		m.Note("%d X events of negative duration were skipped", st.negative)
	}
	if st.idle > 0 {
		m.Note("%d stacks' times with an idle leaf were dropped (--drop-idle)", st.idle)
	}
	if st.deep > 0 {
		m.Note("%d stretches of time had more than %d nested spans open: their stacks keep the innermost %d", st.deep, maxSpanDepth, maxSpanDepth)
	}
	if tr.asyncEvs > 0 {
		m.Note("%d async and flow events (b/e, n, S/T/F…) were left out: they span threads and do not nest", tr.asyncEvs)
	}
	if tr.truncated {
		m.Note("the trace ends without closing its array of events (the trace was cut short, or written as the format allows): the events before the end were read")
	}
	return nil
}

// threadSpans pairs a thread's events into spans: an X is a span of its
// duration, an E closes the innermost open B (B still open at the end
// close at the thread's last time). Spans of length 0 are left out.
func threadSpans(evs []spanEvent, st *spanStats) []traceSpan {
	slices.SortStableFunc(evs, func(a, b spanEvent) int { return cmp.Compare(a.ts, b.ts) })
	var out, open []traceSpan
	last := math.Inf(-1)
	for _, e := range evs {
		last = max(last, e.ts)
		switch e.ph {
		case 'X':
			if e.dur < 0 {
				st.negative++
				continue
			}
			last = max(last, e.ts+e.dur)
			out = append(out, traceSpan{e.name, e.ts, e.ts + e.dur, e.seq})
		case 'B':
			open = append(open, traceSpan{e.name, e.ts, 0, e.seq})
		case 'E':
			if len(open) == 0 {
				st.orphanEnds++
				continue
			}
			s := open[len(open)-1]
			open = open[:len(open)-1]
			if e.name != "" && e.name != s.name {
				st.mismatched++
			}
			s.end = e.ts
			out = append(out, s)
		}
	}
	for _, s := range open {
		st.unclosed++
		s.end = last
		out = append(out, s)
	}
	out = slices.DeleteFunc(out, func(s traceSpan) bool { return !(s.end > s.start) })
	slices.SortFunc(out, func(a, b traceSpan) int {
		switch {
		case a.start != b.start:
			if a.start < b.start {
				return -1
			}
			return 1
		case a.end != b.end:
			if a.end > b.end {
				return -1
			}
			return 1
		}
		return a.seq - b.seq
	})
	return out
}

// sweepSpans calls add for each stretch of time with open spans: the
// open spans (outermost first, in spans' order: spans is sorted by
// start, then the longer first) and the stretch's length.
func sweepSpans(spans []traceSpan, add func(stack []traceSpan, w float64)) {
	times := make([]float64, 0, 2*len(spans))
	for _, s := range spans {
		times = append(times, s.start, s.end)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	var active []traceSpan
	next := 0
	for i, t := range times {
		active = slices.DeleteFunc(active, func(s traceSpan) bool { return s.end <= t })
		for next < len(spans) && spans[next].start <= t {
			active = append(active, spans[next])
			next++
		}
		if len(active) > 0 && i+1 < len(times) {
			add(active, times[i+1]-t)
		}
	}
}
