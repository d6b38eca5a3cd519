package jsonprof

import (
	"cmp"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// The Trace Event Format's object form may carry a sampling profile of
// its own beside its events: "stackFrames" ({id: {name, category,
// parent}}) and "samples" ([{pid, tid, ts, sf, weight}], sf naming the
// sample's innermost frame). Hermes (React Native's JavaScript engine)
// writes its profiles so, as did Chrome's tracing with a sampling
// profiler.
//
// Each sample is read as a V8 sample is: it weighs the time to its
// thread's next sample (the last one its thread's mean interval), in
// microseconds; its stack is its frame and the frame's parents, named
// exactly, in the image of the frame's url when it has one, else
// NoFileImage. Hermes names a JavaScript frame `name(url:line:column)`:
// the function is name, in the url's image (told apart from another of
// its name there by funcLine and funcColumn). Processes are named by their process_name metadata
// event, threads busy for their samples' time over the samples' span.

// hermesFrame is a Hermes JavaScript frame's name: the function's name
// and, in parentheses, where the code runs (`render(http://host/index.bundle?platform=android:418874:4)`).
var hermesFrame = regexp.MustCompile(`^(.*)\((.+):\d+:\d+\)$`)

// hasTraceSamples says whether a trace carries samples and stackFrames.
func hasTraceSamples(j *profread.JSONTop) bool {
	return j.Has("samples", '[') && j.Has("stackFrames", '{')
}

// traceSampleFile is the object form with samples and stack frames.
type traceSampleFile struct {
	TraceEvents []struct {
		Name string           `json:"name"`
		Ph   string           `json:"ph"`
		Pid  profread.FlexInt `json:"pid"`
		Args struct {
			Name string `json:"name"`
		} `json:"args"`
	} `json:"traceEvents"`
	Samples []struct {
		Pid profread.FlexInt    `json:"pid"`
		Tid profread.FlexInt    `json:"tid"`
		Ts  profread.FlexFloat  `json:"ts"`
		SF  profread.FlexString `json:"sf"`
	} `json:"samples"`
	StackFrames map[string]traceStackFrame `json:"stackFrames"`
}

// traceStackFrame is an entry of a trace's stackFrames.
type traceStackFrame struct {
	Name       string              `json:"name"`
	URL        string              `json:"url"`
	Category   string              `json:"category"`
	FuncLine   profread.FlexInt    `json:"funcLine"`
	FuncColumn profread.FlexInt    `json:"funcColumn"`
	Parent     profread.FlexString `json:"parent"`
}

// readTraceSamples reads a trace's samples and stack frames.
func readTraceSamples(r *profread.Reading) error {
	var f traceSampleFile
	if err := r.DecodeJSON(r.Data, &f, "trace"); err != nil {
		return err
	}
	if len(f.Samples) == 0 {
		return r.Errorf("the trace's \"samples\" is empty: there is nothing to import")
	}
	procNames := map[int64]string{}
	for _, e := range f.TraceEvents {
		if e.Ph == "M" && e.Name == "process_name" && e.Args.Name != "" {
			procNames[e.Pid.Value] = e.Args.Name
		}
	}
	processName := func(pid int64) string {
		if n, ok := procNames[pid]; ok {
			return n
		}
		return "pid " + strconv.FormatInt(pid, 10)
	}
	type tkey struct{ pid, tid int64 }
	type sample struct {
		ts float64
		sf string
	}
	var order []tkey
	byThread := map[tkey][]sample{}
	var names []string
	for _, s := range f.Samples {
		k := tkey{s.Pid.Value, s.Tid.Value}
		if _, ok := byThread[k]; !ok {
			order = append(order, k)
			names = append(names, processName(k.pid))
		}
		byThread[k] = append(byThread[k], sample{s.Ts.Value, string(s.SF)})
	}
	keep, err := keepProcesses(r, names)
	if err != nil {
		return err
	}
	b := newSrcBuilder(r.Model)
	fids := map[string]int{}
	checked := false // for a cycle of parents, once a walk reaches the depth bound
	stackOf := func(sf string, frames []int) ([]int, error) {
		for id := sf; id != ""; {
			fr, ok := f.StackFrames[id]
			if !ok {
				return nil, r.Errorf("a sample or frame names stack frame %q, which stackFrames does not hold: the trace is damaged", id)
			}
			if profmodel.Deeper(len(frames)) { // cut: its innermost frames are enough
				if !checked {
					checked = true
					if c := stackFramesCycle(f.StackFrames); c != "" {
						return nil, r.Errorf("stack frame %q is its own ancestor (a cycle of parents): the trace is damaged", c)
					}
				}
				break
			}
			fid, ok := fids[id]
			if !ok {
				sf := srcFunc{name: fr.Name, line: int(fr.FuncLine.Value), col: int(fr.FuncColumn.Value)}
				url := fr.URL
				if m := hermesFrame.FindStringSubmatch(fr.Name); m != nil && url == "" && fr.Category == "JavaScript" {
					sf.name, url = m[1], m[2]
				}
				sf.img = b.fileImage(url)
				fid = b.fn(sf)
				fids[id] = fid
			}
			frames = append(frames, fid)
			id = string(fr.Parent)
		}
		return frames, nil
	}
	unique := uniqueProcessNames{}
	procName := map[int64]string{}
	var frames []int
	var total float64
	var n, idle int64
	for _, k := range order {
		base := processName(k.pid)
		if !keep(base) {
			continue
		}
		ss := byThread[k]
		slices.SortStableFunc(ss, func(a, b sample) int { return cmp.Compare(a.ts, b.ts) })
		mean := 0.0
		if len(ss) > 1 {
			mean = (ss[len(ss)-1].ts - ss[0].ts) / float64(len(ss)-1)
		}
		if !(mean > 0) {
			mean = 1 // one sample, or all at one time: each weighs 1 µs
		}
		pkey := strconv.FormatInt(k.pid, 10)
		if _, ok := procName[k.pid]; !ok {
			procName[k.pid] = unique.name(base, pkey)
		}
		t := b.thread(pkey, procName[k.pid], strconv.FormatInt(k.tid, 10))
		b.cover(ss[0].ts, ss[len(ss)-1].ts+mean)
		for i, s := range ss {
			w := mean
			if i+1 < len(ss) {
				w = ss[i+1].ts - s.ts
			}
			if frames, err = stackOf(s.sf, frames[:0]); err != nil {
				return err
			}
			if len(frames) == 0 || w <= 0 {
				continue
			}
			if r.Options.DropIdle && srcIdle(f.StackFrames[s.sf].Name) {
				idle++
				continue
			}
			b.add(t, frames, w)
			total += w
			n++
		}
	}
	if total <= 0 || math.IsInf(total, 0) {
		return r.Errorf("the trace's samples hold no time to import")
	}
	if err := b.finish(r); err != nil {
		return err
	}
	r.Sampling.SampleType, r.Sampling.Samples = "wall/microseconds", n
	r.Sampling.Period, r.Sampling.PeriodType, r.Sampling.PeriodUnit = total/float64(n), "wall", "microseconds"
	if idle > 0 {
		r.Model.Note("%d idle samples were dropped (--drop-idle)", idle)
	}
	return nil
}

// stackFramesCycle is a stack frame whose parents lead back to it, or
// "" when none does (ids in sorted order, so that the one named is
// always the same).
func stackFramesCycle(frames map[string]traceStackFrame) string {
	ids := slices.Sorted(maps.Keys(frames))
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}
	j := firstCycle(len(ids), func(i int) int {
		if k, ok := index[string(frames[ids[i]].Parent)]; ok {
			return k
		}
		return -1
	})
	if j < 0 {
		return ""
	}
	return ids[j]
}
