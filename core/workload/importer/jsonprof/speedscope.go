package jsonprof

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// speedscopeSchema is the "$schema" every speedscope file names.
const speedscopeSchema = "https://www.speedscope.app/file-format-schema.json"

// Speedscope reads speedscope's file format
// (https://www.speedscope.app/file-format-schema.json): shared.frames
// ({name, file, line, col}) and profiles, each "sampled" (samples: stacks
// of frame indices, root first; weights: one per sample) or "evented"
// (events: {type "O" or "C", frame, at}, opening and closing frames at
// non-decreasing times), with a unit ("none", "nanoseconds",
// "microseconds", "milliseconds", "seconds" or "bytes") and startValue,
// endValue. py-spy, rbspy, Austin, speedscope itself and many others
// write it.
//
// Weight: a sample's weight, or the time a stack is open between two
// events, in the profile's unit; times are converted to microseconds so
// that profiles add up (time and count units cannot be mixed; bytes get
// a warning). Names are the frames' names exactly; frames of one name in
// one file are one function (py-spy's frames carry the sampled line, not
// the function's); each file is an image named by its base name, frames
// without a file are in NoFileImage. Each profile is a thread. When
// every profile's name names a process id — py-spy's `Process 12
// Thread 34 "name"`, rbspy's `rbspy profile - pid 12` — profiles are
// grouped into a process per id, named "NAME (pid 12)" (NAME: --process,
// else the file's base name); otherwise they are threads of one process
// NAME. A thread is busy for its weight over the file's wall span: the
// longest of the profiles' endValue − startValue and of their total
// weights (exporters write endValue inconsistently). --drop-idle drops
// the samples whose leaf is idle (see srcIdle).
var Speedscope = &profread.Format{
	Name:  "speedscope",
	About: "speedscope's JSON file format, sampled and evented profiles (py-spy, rbspy, Austin, speedscope's export and many others)",
	Detect: func(c *profread.Content) (any, bool) {
		j := c.JSON()
		return nil, j.Str("$schema") == speedscopeSchema || j.Has("profiles", '[') && j.Has("shared", '{')
	},
	Read: readSpeedscope,
}

// speedscopeFile is a speedscope file.
type speedscopeFile struct {
	Schema string `json:"$schema"`
	Shared struct {
		Frames []struct {
			Name *string `json:"name"`
			File string  `json:"file"`
		} `json:"frames"`
	} `json:"shared"`
	Profiles []speedscopeProfile `json:"profiles"`
}

// speedscopeProfile is a sampled or an evented profile.
type speedscopeProfile struct {
	Type       string    `json:"type"`
	Name       string    `json:"name"`
	Unit       string    `json:"unit"`
	StartValue float64   `json:"startValue"`
	EndValue   float64   `json:"endValue"`
	Samples    [][]int64 `json:"samples"`
	Weights    []float64 `json:"weights"`
	Events     []struct {
		Type  string  `json:"type"`
		Frame int64   `json:"frame"`
		At    float64 `json:"at"`
	} `json:"events"`
}

// speedscopeUnits are the time units in microseconds.
var speedscopeUnits = map[string]float64{"nanoseconds": 1e-3, "microseconds": 1, "milliseconds": 1e3, "seconds": 1e6}

// speedscopePid finds the process id a profile's name gives.
var speedscopePid = regexp.MustCompile(`(?i)(?:^process|\bpid)[ :=#]*(\d+)\b`)

// readSpeedscope reads a speedscope file.
func readSpeedscope(r *profread.Reading) error {
	var f speedscopeFile
	if err := r.DecodeJSON(r.Data, &f, "speedscope file"); err != nil {
		return err
	}
	if len(f.Profiles) == 0 {
		return r.Errorf("the file has no profiles: there is nothing to import")
	}
	kind, err := speedscopeUnit(r, f.Profiles)
	if err != nil {
		return err
	}
	b := newSrcBuilder(r.Model)
	fids := make([]int, len(f.Shared.Frames))
	names := make([]string, len(f.Shared.Frames))
	for i, fr := range f.Shared.Frames {
		if fr.Name == nil {
			return r.Errorf("frame %d of shared.frames has no name: the file is damaged", i)
		}
		names[i] = *fr.Name
		fids[i] = b.fn(srcFunc{img: b.fileImage(fr.File), name: *fr.Name})
	}
	pname := r.Options.Process
	if pname == "" {
		pname = filepath.Base(r.Name)
	}
	pids := speedscopePids(f.Profiles)
	sr := &speedscopeReader{r: r, b: b, fids: fids, names: names}
	var wall float64
	for i := range f.Profiles {
		p := &f.Profiles[i]
		pkey, proc := "", pname
		if pids != nil {
			pkey, proc = pids[i], fmt.Sprintf("%s (pid %s)", pname, pids[i])
		}
		scale := 1.0 // a time unit's microseconds
		if s, ok := speedscopeUnits[p.Unit]; ok {
			scale = s
		}
		t := b.thread(pkey, proc, strconv.Itoa(i))
		total, err := sr.profile(i, p, t, scale)
		if err != nil {
			return err
		}
		wall = max(wall, (p.EndValue-p.StartValue)*scale, total)
	}
	b.cover(0, wall)
	if sr.samples == 0 {
		return r.Errorf("no sample with a positive weight is left to import (%d idle samples dropped)", sr.idle)
	}
	if err := b.finish(r); err != nil {
		return err
	}
	sr.notes(kind)
	return nil
}

// speedscopeUnit checks that the profiles' units add up: all times
// (converted to microseconds), or all of one other unit; kind is "time",
// "none" or "bytes".
func speedscopeUnit(r *profread.Reading, ps []speedscopeProfile) (kind string, err error) {
	for i, p := range ps {
		u := p.Unit
		if u == "" {
			u = "none"
		}
		k := u
		if _, ok := speedscopeUnits[u]; ok {
			k = "time"
		} else if u != "none" && u != "bytes" {
			return "", r.Errorf("profile %d has unit %q: speedscope's units are none, nanoseconds, microseconds, milliseconds, seconds and bytes", i, p.Unit)
		}
		if i > 0 && k != kind {
			return "", r.Errorf("profile 0 is in %s and profile %d in %s: their weights cannot be added into one workload; import a file of one kind of unit", ps[0].Unit, i, p.Unit)
		}
		kind = k
	}
	return kind, nil
}

// speedscopePids are the process ids the profiles' names give, or nil
// when a profile's name gives none.
func speedscopePids(ps []speedscopeProfile) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		m := speedscopePid.FindStringSubmatch(p.Name)
		if m == nil {
			return nil
		}
		out[i] = m[1]
	}
	return out
}

// speedscopeReader reads the profiles of a speedscope file.
type speedscopeReader struct {
	r     *profread.Reading
	b     *srcBuilder
	fids  []int
	names []string
	// What was read, for the notes and the period.
	samples, idle, zero, empty int64
	weight                     float64
	uniform                    bool
	frames                     []int
}

// profile adds profile i (p) to t: its samples or events, weights times
// scale. total is its weight (idle included).
func (sr *speedscopeReader) profile(i int, p *speedscopeProfile, t *srcThread, scale float64) (total float64, err error) {
	r := sr.r
	switch p.Type {
	case "sampled":
		if len(p.Weights) != len(p.Samples) {
			return 0, r.Errorf("profile %d (%q) has %d samples but %d weights: each sample has its weight; the file is damaged", i, p.Name, len(p.Samples), len(p.Weights))
		}
		for k, stack := range p.Samples {
			w := p.Weights[k]
			if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
				return 0, r.Errorf("profile %d (%q), sample %d has weight %g: weights are >= 0", i, p.Name, k, w)
			}
			if err := sr.stack(i, k, stack, w*scale, t); err != nil {
				return 0, err
			}
			total += float64(w * scale)
		}
	case "evented":
		var open []int64
		for k, ev := range p.Events {
			if k > 0 {
				prev := p.Events[k-1].At
				if ev.At < prev {
					return 0, r.Errorf("profile %d (%q), event %d is at %g, before the event before it (%g): events are in time order", i, p.Name, k, ev.At, prev)
				}
				if len(open) > 0 && ev.At > prev {
					// the innermost frames, up to one past the depth
					// bound (the stack is cut to it): a copy of every
					// open frame at every event was N² for N nested opens
					stack := open[len(open)-min(len(open), profmodel.MaxStackDepth+1):]
					if err := sr.stack(i, k-1, stack, (ev.At-prev)*scale, t); err != nil {
						return 0, err
					}
					total += float64((ev.At - prev) * scale)
				}
			}
			if ev.Frame < 0 || ev.Frame >= int64(len(sr.fids)) {
				return 0, r.Errorf("profile %d (%q), event %d names frame %d; shared.frames has %d", i, p.Name, k, ev.Frame, len(sr.fids))
			}
			switch ev.Type {
			case "O":
				open = append(open, ev.Frame)
			case "C":
				if len(open) == 0 || open[len(open)-1] != ev.Frame {
					return 0, r.Errorf("profile %d (%q), event %d closes frame %d (%s), which is not the innermost open frame: opens and closes must nest", i, p.Name, k, ev.Frame, sr.names[ev.Frame])
				}
				open = open[:len(open)-1]
			default:
				return 0, r.Errorf("profile %d (%q), event %d has type %q: an event opens (\"O\") or closes (\"C\") a frame", i, p.Name, k, ev.Type)
			}
		}
		if len(open) > 0 {
			return 0, r.Errorf("profile %d (%q) ends with %d frames open (the innermost %s): every opened frame is closed", i, p.Name, len(open), sr.names[open[len(open)-1]])
		}
	default:
		return 0, r.Errorf("profile %d (%q) has type %q: a speedscope profile is \"sampled\" or \"evented\"", i, p.Name, p.Type)
	}
	return total, nil
}

// stack adds sample k of profile i: stack (frame indices, root first)
// of weight w.
func (sr *speedscopeReader) stack(i, k int, stack []int64, w float64, t *srcThread) error {
	sr.frames = sr.frames[:0]
	for j := len(stack) - 1; j >= 0; j-- {
		f := stack[j]
		if f < 0 || f >= int64(len(sr.fids)) {
			return sr.r.Errorf("profile %d, sample %d names frame %d; shared.frames has %d", i, k, f, len(sr.fids))
		}
		sr.frames = append(sr.frames, sr.fids[f])
	}
	switch {
	case len(stack) == 0:
		sr.empty++
	case w == 0:
		sr.zero++
	case sr.r.Options.DropIdle && srcIdle(sr.names[stack[len(stack)-1]]):
		sr.idle++
	default:
		if sr.samples == 0 {
			sr.weight, sr.uniform = w, true
		} else if w != sr.weight {
			sr.uniform = false
		}
		sr.b.add(t, sr.frames, w)
		sr.samples++
	}
	return nil
}

// notes sets the sample type and period and notes what was left out.
func (sr *speedscopeReader) notes(kind string) {
	m, im := sr.r.Model, sr.r.Sampling
	im.Samples = sr.samples
	switch kind {
	case "time":
		im.SampleType = "time/microseconds"
		if sr.uniform {
			im.Period, im.PeriodType, im.PeriodUnit = sr.weight, "time", "microseconds"
		}
	case "bytes":
		im.SampleType = "bytes"
		m.Warn("the profiles weigh bytes (memory), not where the program ran: their weights are taken for time")
	default:
		im.SampleType = "count"
		if sr.uniform {
			im.Period, im.PeriodType, im.PeriodUnit = sr.weight, "samples", "count"
		}
	}
	if sr.empty > 0 {
		m.Note("%d samples with no frame were dropped", sr.empty)
	}
	if sr.zero > 0 {
		m.Note("%d samples of weight 0 were skipped", sr.zero)
	}
	if sr.idle > 0 {
		m.Note("%d idle samples were dropped (--drop-idle)", sr.idle)
	}
}
