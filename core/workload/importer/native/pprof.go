package native

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// MaxMapping is the largest mapping taken as an image's range (1 GiB):
// a larger one is a placeholder (pprof gives a profile without mappings
// one covering every address), and the image then covers the addresses
// seen in it.
const MaxMapping = 1 << 30

// kernelAddress is where Linux's (and every x64 kernel's) system space
// starts: source addresses from here are kernel code.
const kernelAddress = 0xFFFF800000000000

// Pprof is pprof's profile.proto and the legacy forms pprof reads.
var Pprof = &profread.Format{
	Name:  "pprof",
	About: "pprof's profile.proto, gzipped or not (Go's runtime/pprof, go test -cpuprofile, gperftools), and the legacy profiles pprof reads",
	Detect: func(c *profread.Content) (any, bool) {
		p, err := parsePprof(c.Data)
		return p, err == nil
	},
	Read: func(r *profread.Reading) error {
		p, _ := r.State.(*profile.Profile)
		return importPprof(r, p)
	},
}

// importPprof fills r.Model from a pprof profile (p, or r.Data parsed).
func importPprof(r *profread.Reading, p *profile.Profile) error {
	name, data, opt, m, im := r.Name, r.Data, r.Options, r.Model, r.Sampling
	if p == nil {
		var err error
		if p, err = parsePprof(data); err != nil {
			return &profread.Error{Source: name, Msg: fmt.Sprintf("not a profile pprof reads (%v): check the file, or give --format perf or folded if it is one of those", err)}
		}
	}
	vi, err := weightIndex(p, m)
	if err != nil {
		return &profread.Error{Source: name, Msg: err.Error()}
	}
	im.SampleType = p.SampleType[vi].Type + "/" + p.SampleType[vi].Unit
	if p.PeriodType != nil {
		im.PeriodType, im.PeriodUnit = p.PeriodType.Type, p.PeriodType.Unit
	}
	im.Period = float64(p.Period)
	ci := countIndex(p)
	pr := m.Process("", pprofProcess(name, p, opt))
	th := pr.Thread("")
	pm := newPprofMapper(m, p)
	pm.findOutliers(p, vi)
	var noLoc, idle, labels int64
	labelKeys := map[string]bool{}
	var frames []profmodel.Frame
	for i, s := range p.Sample {
		if len(s.Value) != len(p.SampleType) {
			return &profread.Error{Source: name, Msg: fmt.Sprintf("sample %d has %d values for %d sample types: the profile is malformed", i+1, len(s.Value), len(p.SampleType))}
		}
		v := s.Value[vi]
		if v < 0 {
			return &profread.Error{Source: name, Msg: fmt.Sprintf("sample %d has a negative %s (%d): a difference profile (pprof -diff_base) cannot be imported; import the profile itself", i+1, im.SampleType, v)}
		}
		if len(s.Label) > 0 || len(s.NumLabel) > 0 {
			labels++
			for k := range s.Label {
				labelKeys[k] = true
			}
			for k := range s.NumLabel {
				labelKeys[k] = true
			}
		}
		if v == 0 {
			continue
		}
		n := int64(1)
		if ci >= 0 {
			n = s.Value[ci]
		}
		if len(s.Location) == 0 {
			noLoc += n
			continue
		}
		frames = pm.frames(frames[:0], s.Location)
		if len(frames) == 0 {
			noLoc += n
			continue
		}
		if opt.DropIdle && profmodel.IsIdle(frames[0].Func.Name()) {
			idle += n
			continue
		}
		m.Add(th, frames, float64(v))
		im.Samples += n
	}
	if noLoc > 0 {
		m.Note("%d samples without a location were dropped", noLoc)
	}
	if idle > 0 {
		m.Note("%d idle samples were dropped (--drop-idle)", idle)
	}
	if labels > 0 {
		keys := make([]string, 0, len(labelKeys))
		for k := range labelKeys {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		m.Note("%d samples carry labels (%s); labels are ignored: the workload is one process with one thread", labels, strings.Join(keys, ", "))
	}
	if im.Samples == 0 {
		return &profread.Error{Source: name, Msg: fmt.Sprintf("the profile has no sample with a positive %s and a location: there is nothing to import", im.SampleType)}
	}
	noteOutliers(m, pm.outlierFrames, pm.outlierAddrs, pm.outlierExample)
	return nil
}

// weightIndex is the sample value used as weight: the CPU sample type
// ("cpu"), else pprof's default sample type (DefaultSampleType, else the
// last). A profile of something other than where a program ran (memory,
// goroutines, lock contention) is imported as every form pprof reads
// is, with a warning: its values are taken for time.
func weightIndex(p *profile.Profile, m *profmodel.Model) (int, error) {
	if len(p.SampleType) == 0 {
		return 0, fmt.Errorf("the profile has no sample type: nothing to weigh samples by")
	}
	vi := len(p.SampleType) - 1
	if p.DefaultSampleType != "" {
		for i, st := range p.SampleType {
			if st.Type == p.DefaultSampleType {
				vi = i
			}
		}
	}
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			vi = i
		}
	}
	if k := notCPU(p.SampleType[vi]); k != nil {
		m.Warn("%s, not a CPU profile: its %s/%s values are where %s, not where the program ran, and the workload spends its time in those proportions; for where a program runs, import a CPU profile (pprof.StartCPUProfile, go test -cpuprofile, /debug/pprof/profile, perf record)",
			k.what, p.SampleType[vi].Type, p.SampleType[vi].Unit, k.values)
	}
	return vi, nil
}

// profileKind is a kind of pprof profile that is not CPU time: what it
// is, and where its values say things happened.
type profileKind struct{ what, values string }

// notCPU is the kind of profile of a sample type known not to be CPU
// time, or nil.
func notCPU(st *profile.ValueType) *profileKind {
	switch t := strings.ToLower(st.Type); {
	case strings.HasPrefix(t, "alloc_"), strings.HasPrefix(t, "inuse_"), t == "space", t == "objects":
		return &profileKind{"a memory profile", "memory was allocated"}
	case t == "goroutine", t == "goroutines":
		return &profileKind{"a goroutine profile", "goroutines were when it was taken"}
	case t == "threadcreate":
		return &profileKind{"a thread-creation profile", "threads were created"}
	case t == "contentions", t == "delay", t == "lock-time", t == "lock_count":
		return &profileKind{"a block or mutex profile", "goroutines waited"}
	}
	return nil
}

// countIndex is the index of the "samples"/"count" value, or -1.
func countIndex(p *profile.Profile) int {
	for i, st := range p.SampleType {
		if st.Type == "samples" && st.Unit == "count" {
			return i
		}
	}
	return -1
}

// mainMapping is the profile's main binary's mapping (pprof's
// convention: the first), or nil.
func mainMapping(p *profile.Profile) *profile.Mapping {
	if len(p.Mapping) == 0 {
		return nil
	}
	return p.Mapping[0]
}

// pprofProcess is the process's name: opt.Process, else the main
// mapping's file's base name, else the source's base name.
func pprofProcess(name string, p *profile.Profile, opt profread.Options) string {
	if opt.Process != "" {
		return opt.Process
	}
	if mm := mainMapping(p); mm != nil && mm.File != "" {
		return filepath.Base(mm.File)
	}
	return filepath.Base(name)
}

// pprofMapper turns locations into frames, images and functions, each
// location once.
type pprofMapper struct {
	m      *profmodel.Model
	byID   [][]profmodel.Frame // a location's frames by ID, when IDs are small
	locs   map[*profile.Location][]profmodel.Frame
	images map[*profile.Mapping]*profmodel.Image
	// outliers are the outlier addresses by image (see outliers.go).
	outliers       map[any]map[uint64]bool
	outlierFrames  int64
	outlierAddrs   int
	outlierExample string
}

// findOutliers finds the outlier addresses of every image from the
// locations of the samples that will be read (value vi not 0), making
// the images in the order the samples show them.
func (pm *pprofMapper) findOutliers(p *profile.Profile, vi int) {
	c := newAddrCensus()
	type first struct {
		img  *profmodel.Image
		addr uint64
	}
	var order []first
	for _, s := range p.Sample {
		if vi >= len(s.Value) || s.Value[vi] == 0 {
			continue
		}
		for _, loc := range s.Location {
			img := pm.image(loc)
			if loc.Address != 0 {
				c.add(img, img.Kernel(), loc.Address)
				order = append(order, first{img, loc.Address})
			}
		}
	}
	pm.outliers, pm.outlierFrames, pm.outlierAddrs = c.outliers()
	for _, f := range order {
		if pm.outliers[f.img][f.addr] {
			pm.outlierExample = outlierExample(f.addr, f.img.Name())
			break
		}
	}
}

func newPprofMapper(m *profmodel.Model, p *profile.Profile) *pprofMapper {
	pm := &pprofMapper{m: m, locs: map[*profile.Location][]profmodel.Frame{}, images: map[*profile.Mapping]*profmodel.Image{}}
	var maxID uint64
	for _, l := range p.Location {
		maxID = max(maxID, l.ID)
	}
	if maxID <= 2*uint64(len(p.Location))+16 {
		pm.byID = make([][]profmodel.Frame, maxID+1)
	}
	return pm
}

// frames appends the frames of locs (leaf first; a location's lines
// expanded innermost first, each inlined into the next, the address the
// last's: the physical function's, whose symbol holds it).
func (pm *pprofMapper) frames(out []profmodel.Frame, locs []*profile.Location) []profmodel.Frame {
	for _, loc := range locs {
		var fs []profmodel.Frame
		if loc.ID < uint64(len(pm.byID)) {
			if fs = pm.byID[loc.ID]; fs == nil {
				fs = pm.location(loc)
				pm.byID[loc.ID] = fs
			}
		} else {
			var ok bool
			if fs, ok = pm.locs[loc]; !ok {
				fs = pm.location(loc)
				pm.locs[loc] = fs
			}
		}
		out = append(out, fs...)
	}
	return out
}

// location is loc's frames.
func (pm *pprofMapper) location(loc *profile.Location) []profmodel.Frame {
	img := pm.image(loc)
	addr, hasAddr := loc.Address, loc.Address != 0
	outlier := hasAddr && pm.outliers[img][addr]
	hasAddr = hasAddr && !outlier
	if len(loc.Line) == 0 {
		n := unsymbolized(img, loc.Mapping, addr)
		if outlier {
			n = UnknownFunction
		}
		f := pm.m.Func(img, n)
		f.MarkUnsymbolized()
		return []profmodel.Frame{{Func: f, Addr: addr, HasAddr: hasAddr}}
	}
	fs := make([]profmodel.Frame, 0, len(loc.Line))
	for i, ln := range loc.Line {
		n := ""
		if ln.Function != nil {
			n = ln.Function.Name
			if n == "" {
				n = ln.Function.SystemName
			}
		}
		unknown := n == ""
		if unknown {
			n = unsymbolized(img, loc.Mapping, addr)
			if outlier {
				n = UnknownFunction
			}
		}
		f := pm.m.Func(img, n)
		if unknown {
			f.MarkUnsymbolized()
		}
		last := i == len(loc.Line)-1
		fs = append(fs, profmodel.Frame{Func: f, Inlined: !last, Addr: addr, HasAddr: hasAddr && last})
	}
	return fs
}

// unsymbolized names a location without a function: image+0xOFFSET, the
// offset from the mapping's start (the image's base in the workload).
func unsymbolized(img *profmodel.Image, mp *profile.Mapping, addr uint64) string {
	if mp != nil && addr >= mp.Start {
		addr -= mp.Start
	}
	return fmt.Sprintf("%s+0x%x", img.Name(), addr)
}

// image is loc's image: its mapping's (file base name; kernel when the
// file is the kernel's or the addresses are in system space), or for a
// location without a mapping "[unmapped]" (user) or "[kernel]".
func (pm *pprofMapper) image(loc *profile.Location) *profmodel.Image {
	mp := loc.Mapping
	if mp == nil {
		if loc.Address >= kernelAddress {
			return pm.m.Image("unmapped-kernel", "[kernel]", true)
		}
		return pm.m.Image("unmapped", "[unmapped]", false)
	}
	if img := pm.images[mp]; img != nil {
		return img
	}
	key := fmt.Sprintf("mapping %d %p", mp.ID, mp)
	n := filepath.Base(mp.File)
	if mp.File == "" {
		n = fmt.Sprintf("mapping%d", mp.ID)
	}
	kernel := mp.Start >= kernelAddress || strings.HasPrefix(n, "[kernel") || strings.HasPrefix(n, "vmlinux")
	img := pm.m.Image(key, n, kernel)
	switch {
	case mp.Limit > mp.Start && mp.Limit-mp.Start <= MaxMapping:
		img.SetMapping(mp.Start, mp.Limit)
	case mp.Limit > mp.Start:
		pm.m.Note("mapping %s spans 0x%X…0x%X, more than any code: taken as unknown (the image covers the addresses seen in it)", img.Name(), mp.Start, mp.Limit)
	}
	pm.images[mp] = img
	return img
}

// parsePprof parses data (not gzipped) as pprof does, turning a panic of
// the parser on hostile input into an error.
func parsePprof(data []byte) (p *profile.Profile, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("the pprof parser failed on this content (%v)", r)
		}
	}()
	return profile.ParseData(data)
}
