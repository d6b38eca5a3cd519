package jsonprof

import (
	"path/filepath"
	"slices"
	"strconv"

	"github.com/proflab/proflab/core/workload/importer/profread"
)

// Stackprof reads the JSON of Ruby's stackprof (`stackprof --json`,
// StackProf.results written with JSON.generate): mode ("cpu", "wall",
// "object" or "custom"), interval (microseconds in cpu and wall mode,
// allocations in object mode), frames ({id: {name, file, line, samples,
// total_samples, edges}}) and, recorded with raw: true, raw (for each
// run of identical samples: the stack's depth, its frame ids root first,
// the run's length) and raw_timestamp_deltas (microseconds since the
// previous sample, one per sample).
//
// Weight: in cpu and wall mode, time in microseconds: a sample weighs
// its timestamp delta (as speedscope reads it: stackprof's timer signals
// are coalesced, so the samples are fewer than interval says), else
// interval; in object and custom mode, the samples (with a warning for
// object mode: allocations are not time). Names are stackprof's labels
// ("Object#heavy", "block in Foo#bar", "<main>", "Integer#times"), told
// apart by their first line where two methods of one file share one;
// its garbage collector frames "(garbage collection)", "(marking)" and
// "(sweeping)" are kept as the stacks stackprof records them. Each file
// is an image named by its base name ("<cfunc>" for C functions),
// frames without a file are in NoFileImage. Without raw stacks each
// frame's own samples become a stack of that frame alone (a note says
// the calling contexts are not in the file). One process (--process,
// else the file's base name) of one thread, busy 1: stackprof records
// no idle time. --drop-idle drops the samples whose leaf is idle (see
// srcIdle).
var Stackprof = &profread.Format{
	Name:  "stackprof",
	About: "Ruby stackprof's JSON (stackprof --json, StackProf.results as JSON), raw stacks or frames' samples",
	Detect: func(c *profread.Content) (any, bool) {
		j := c.JSON()
		return nil, j.Has("mode", '"') && j.Has("frames", '{')
	},
	Read: readStackprof,
}

// stackprofFile is stackprof's result.
type stackprofFile struct {
	Mode               string                    `json:"mode"`
	Interval           *float64                  `json:"interval"`
	Frames             map[string]stackprofFrame `json:"frames"`
	Raw                []int64                   `json:"raw"`
	RawTimestampDeltas []float64                 `json:"raw_timestamp_deltas"`
}

// stackprofFrame is a frame: a method or block, or a pseudo-frame.
type stackprofFrame struct {
	Name    *string `json:"name"`
	File    string  `json:"file"`
	Line    *int64  `json:"line"`
	Samples int64   `json:"samples"`
}

// readStackprof reads stackprof's JSON.
func readStackprof(r *profread.Reading) error {
	var f stackprofFile
	if err := r.DecodeJSON(r.Data, &f, "stackprof result"); err != nil {
		return err
	}
	timed := f.Mode == "cpu" || f.Mode == "wall"
	interval := 1.0
	if f.Interval != nil && *f.Interval > 0 {
		interval = *f.Interval
	}
	pname := r.Options.Process
	if pname == "" {
		pname = filepath.Base(r.Name)
	}
	b := newSrcBuilder(r.Model)
	t := b.thread("", pname, "")
	ids := make([]int64, 0, len(f.Frames))
	for key := range f.Frames {
		id, err := strconv.ParseInt(key, 10, 64)
		if err != nil {
			return r.Errorf("frames has key %q: frame ids are integers", profread.Clip(key))
		}
		ids = append(ids, id)
	}
	slices.Sort(ids) // the map's order is random; the workload's is not
	fids := map[int64]int{}
	names := map[int64]string{}
	for _, id := range ids {
		fr := f.Frames[strconv.FormatInt(id, 10)]
		name := "(unknown)"
		if fr.Name != nil {
			name = *fr.Name
		}
		sf := srcFunc{img: b.fileImage(fr.File), name: name}
		if fr.Line != nil && *fr.Line > 0 {
			sf.line = int(*fr.Line)
		}
		names[id] = name
		fids[id] = b.fn(sf)
	}
	var st stackprofStats
	var err error
	if f.Raw != nil {
		err = st.raw(r, b, t, &f, fids, names, timed, interval)
	} else {
		err = st.flat(r, b, t, &f, ids, fids, names, timed, interval)
	}
	if err != nil {
		return err
	}
	if st.samples == 0 {
		return r.Errorf("no sample is left to import (%d idle samples dropped)", st.idle)
	}
	if err := b.finish(r); err != nil {
		return err
	}
	st.notes(r, &f, timed, interval)
	return nil
}

// stackprofStats are what reading stackprof's samples counted.
type stackprofStats struct {
	samples, idle, zero int64
	deltas              bool
}

// raw adds the raw stacks: runs of identical samples.
func (st *stackprofStats) raw(r *profread.Reading, b *srcBuilder, t *srcThread, f *stackprofFile, fids map[int64]int, names map[int64]string, timed bool, interval float64) error {
	var total int64
	for i := 0; i < len(f.Raw); {
		n := f.Raw[i]
		if n < 0 || int64(len(f.Raw)-i) < n+2 {
			return r.Errorf("raw is cut short: the stack at index %d has depth %d, but %d values follow", i, n, len(f.Raw)-i-1)
		}
		if c := f.Raw[i+1+int(n)]; c < 0 {
			return r.Errorf("raw: the stack at index %d is seen %d times: a count is >= 0", i, c)
		} else {
			total += c
		}
		i += int(n) + 2
	}
	st.deltas = timed && len(f.RawTimestampDeltas) > 0
	if st.deltas && int64(len(f.RawTimestampDeltas)) != total {
		return r.Errorf("raw holds %d samples but raw_timestamp_deltas has %d values: each sample has its delta; the file is damaged", total, len(f.RawTimestampDeltas))
	}
	var frames []int
	sample := 0
	for i := 0; i < len(f.Raw); {
		n := int(f.Raw[i])
		ids := f.Raw[i+1 : i+1+n]
		count := f.Raw[i+1+n]
		i += n + 2
		w := float64(count)
		if timed {
			w *= interval
		}
		if st.deltas {
			w = 0
			for _, d := range f.RawTimestampDeltas[sample : sample+int(count)] {
				w += d
			}
		}
		sample += int(count)
		frames = frames[:0]
		for k := n - 1; k >= 0; k-- {
			id, ok := fids[ids[k]]
			if !ok {
				return r.Errorf("raw names frame %d, which frames does not define: the file is damaged", ids[k])
			}
			frames = append(frames, id)
		}
		if n > 0 {
			st.add(r, b, t, frames, names[ids[n-1]], count, w)
		}
	}
	return nil
}

// flat adds each frame's own samples as a stack of that frame alone
// (a result recorded without raw: true has no stacks).
func (st *stackprofStats) flat(r *profread.Reading, b *srcBuilder, t *srcThread, f *stackprofFile, ids []int64, fids map[int64]int, names map[int64]string, timed bool, interval float64) error {
	for _, id := range ids {
		fr := f.Frames[strconv.FormatInt(id, 10)]
		if fr.Samples < 0 {
			return r.Errorf("frame %d (%s) has %d samples: counts are >= 0", id, names[id], fr.Samples)
		}
		w := float64(fr.Samples)
		if timed {
			w *= interval
		}
		st.add(r, b, t, []int{fids[id]}, names[id], fr.Samples, w)
	}
	r.Model.Note("the file has no raw stacks (record with raw: true): each function's own samples are a stack of that function alone, and the calling contexts are lost")
	return nil
}

// add adds count samples of weight w with frames (leaf first), leaf
// named leaf, unless idle or empty.
func (st *stackprofStats) add(r *profread.Reading, b *srcBuilder, t *srcThread, frames []int, leaf string, count int64, w float64) {
	switch {
	case count == 0 || len(frames) == 0:
	case r.Options.DropIdle && srcIdle(leaf):
		st.idle += count
	case w <= 0:
		st.zero += count
	default:
		b.add(t, frames, w)
		st.samples += count
	}
}

// notes sets the sample type and period, and says what was left out.
func (st *stackprofStats) notes(r *profread.Reading, f *stackprofFile, timed bool, interval float64) {
	m, im := r.Model, r.Sampling
	im.Samples = st.samples
	switch {
	case timed:
		im.SampleType = f.Mode + "/microseconds"
		im.Period, im.PeriodType, im.PeriodUnit = interval, f.Mode, "microseconds"
		if f.Mode == "wall" {
			m.Note("stackprof's wall mode samples the program whether it runs or waits: the time it waited is busy time of where it waited")
		}
		if !st.deltas {
			m.Note("the file has no raw_timestamp_deltas: each sample weighs the interval")
		}
	case f.Mode == "object":
		im.SampleType = "object/count"
		im.Period, im.PeriodType, im.PeriodUnit = interval, "allocations", "count"
		m.Warn("stackprof's object mode samples allocations, not where the program ran: its samples are taken for time")
	default:
		im.SampleType = "count"
		m.Note("stackprof's %q mode: each sample weighs 1", f.Mode)
	}
	if st.zero > 0 {
		m.Note("%d samples with a timestamp delta of 0 carry no time and were skipped", st.zero)
	}
	if st.idle > 0 {
		m.Note("%d idle samples were dropped (--drop-idle)", st.idle)
	}
}
