package output

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/google/pprof/profile"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// File names of the outputs.
const (
	BucketsFile = "buckets.csv"
	// TraceFile is the Perfetto trace (protobuf) of the kernel logger
	// sessions and the scheduler.
	TraceFile = "trace.perfetto-trace"
)

// Summary is what result.json reports of the machines: interrupts per
// source and processor, and the files written.
type Summary struct {
	Machines []MachineSummary `json:"machines,omitempty"`
	Files    []string         `json:"files,omitempty"`
}

// MachineSummary is one machine's part of a Summary.
type MachineSummary struct {
	Index int    `json:"index"`
	Runs  int    `json:"runs"`
	Time  uint64 `json:"simulated_time_100ns"`
	// Interrupts delivered by the simulator, by source name.
	Interrupts map[string]uint64 `json:"interrupts"`
	// InterruptsByCPU by processor, then source name.
	InterruptsByCPU []map[string]uint64 `json:"interrupts_by_cpu"`
	// InterruptCount is each processor's KPRCB InterruptCount (every
	// interrupt, m:interrupt's included).
	InterruptCount []uint32 `json:"interrupt_count"`
}

// Summarize sums the machines' simulator results.
func Summarize(reg *Registry) Summary {
	var out Summary
	for _, e := range reg.Machines() {
		ms := MachineSummary{Index: e.Index, Interrupts: map[string]uint64{}, Time: e.Kernel.Now()}
		n := e.Kernel.CPUCount()
		ms.InterruptsByCPU = make([]map[string]uint64, n)
		for c := range n {
			ms.InterruptsByCPU[c] = map[string]uint64{}
			ms.InterruptCount = append(ms.InterruptCount, e.Kernel.InterruptCount(c))
		}
		if e.Sim != nil {
			for _, r := range e.Sim.Results() {
				ms.Runs++
				for k, v := range r.Interrupts {
					ms.Interrupts[k] += v
				}
				for c, row := range r.InterruptsByCPU {
					for k, v := range row {
						ms.InterruptsByCPU[c][k] += v
					}
				}
			}
		}
		out.Machines = append(out.Machines, ms)
	}
	return out
}

// Write writes the outputs of every registered machine into dir (which
// it creates): buckets.csv, one pprof profile per profile with counts, and
// trace.json when a kernel logger ran. It returns the summary with the
// files it wrote (relative to dir), in a fixed order.
func Write(dir string, reg *Registry) (Summary, error) {
	sum := Summarize(reg)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sum, fmt.Errorf("cannot create the output folder: %w", err)
	}
	rows, profs, err := collect(reg)
	if err != nil {
		return sum, err
	}
	if len(rows) > 0 {
		b, err := bucketsCSV(rows)
		if err != nil {
			return sum, err
		}
		if err := os.WriteFile(filepath.Join(dir, BucketsFile), b, 0o644); err != nil {
			return sum, fmt.Errorf("cannot write %s: %w", BucketsFile, err)
		}
		sum.Files = append(sum.Files, BucketsFile)
	}
	for _, p := range profs {
		var b bytes.Buffer
		if err := p.prof.Write(&b); err != nil {
			return sum, fmt.Errorf("cannot encode %s: %w", p.file, err)
		}
		if err := os.WriteFile(filepath.Join(dir, p.file), b.Bytes(), 0o644); err != nil {
			return sum, fmt.Errorf("cannot write %s: %w", p.file, err)
		}
		sum.Files = append(sum.Files, p.file)
	}
	if ok, err := writeTraceFile(filepath.Join(dir, TraceFile), reg); err != nil {
		return sum, err
	} else if ok {
		sum.Files = append(sum.Files, TraceFile)
	}
	return sum, nil
}

// row is one bucket of one profile.
type row struct {
	machine   int
	rec       kernel.ProfileRecord
	bucket    int
	addr      uint64
	function  string
	count     uint32
	truth     sim.BucketTruth
	haveTruth bool
}

type namedProfile struct {
	file string
	prof *profile.Profile
}

// symbols maps addresses to the functions of every workload a machine ran.
type symbols struct {
	funcs []workload.Func
}

func newSymbols(s *sim.Sim) *symbols {
	sy := &symbols{}
	if s == nil {
		return sy
	}
	seen := map[string]bool{}
	for _, r := range s.Results() {
		for _, f := range r.Workload.Funcs {
			key := f.Name + "@" + strconv.FormatUint(f.Addr, 16)
			if !seen[key] {
				seen[key] = true
				sy.funcs = append(sy.funcs, f)
			}
		}
	}
	sort.SliceStable(sy.funcs, func(i, j int) bool { return sy.funcs[i].Addr < sy.funcs[j].Addr })
	return sy
}

// lookup names the function at addr, or the first one starting inside
// [addr, end).
func (sy *symbols) lookup(addr, end uint64) (workload.Func, bool) {
	i := sort.Search(len(sy.funcs), func(i int) bool { return sy.funcs[i].Addr > addr })
	if i > 0 {
		if f := sy.funcs[i-1]; addr-f.Addr < f.Size {
			return f, true
		}
	}
	if i < len(sy.funcs) && sy.funcs[i].Addr < end {
		return sy.funcs[i], true
	}
	return workload.Func{}, false
}

// truthFor sums a profile's bucket truth over every run.
func truthFor(s *sim.Sim, rec kernel.ProfileRecord) []sim.BucketTruth {
	if s == nil {
		return nil
	}
	var out []sim.BucketTruth
	for _, r := range s.Results() {
		for _, p := range r.Profiles {
			if p.Owner != rec.Owner.ID() || p.Handle != rec.Handle || p.Base != rec.Info.Base || p.BucketSize != rec.Info.BucketSize {
				continue
			}
			if out == nil {
				out = make([]sim.BucketTruth, len(p.Buckets))
			}
			for j, b := range p.Buckets {
				if j < len(out) {
					out[j].Addr = b.Addr
					out[j].Instructions += b.Instructions
					out[j].Cycles += b.Cycles
					out[j].Events += b.Events
				}
			}
		}
	}
	return out
}

func collect(reg *Registry) ([]row, []namedProfile, error) {
	var rows []row
	var profs []namedProfile
	for _, e := range reg.Machines() {
		sy := newSymbols(e.Sim)
		for _, rec := range e.Kernel.Profiles() {
			if rec.Info.Size == 0 {
				continue
			}
			counts, err := rec.Counters()
			if err != nil {
				continue // its buffer is gone: nothing to report
			}
			truth := truthFor(e.Sim, rec)
			bs := uint64(rec.Info.BucketSize)
			var total uint64
			var prow []row
			for j, c := range counts {
				addr := rec.Info.Base + uint64(j)<<bs
				var t sim.BucketTruth
				ht := j < len(truth)
				if ht {
					t = truth[j]
				}
				if c == 0 && (!ht || (t.Events == 0 && t.Cycles == 0)) {
					continue
				}
				r := row{machine: e.Index, rec: rec, bucket: j, addr: addr, count: c, truth: t, haveTruth: ht}
				if f, ok := sy.lookup(addr, addr+1<<bs); ok {
					r.function = f.Name
				}
				prow = append(prow, r)
				total += uint64(c)
			}
			rows = append(rows, prow...)
			if total == 0 && !rec.Info.Started {
				continue
			}
			profs = append(profs, namedProfile{
				file: fmt.Sprintf("profile-m%d-pid%d-h%X.pb.gz", e.Index, rec.Owner.ID(), rec.Handle),
				prof: buildPprof(e, rec, prow, sy),
			})
		}
	}
	return rows, profs, nil
}

func bucketsCSV(rows []row) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"machine", "owner_pid", "handle", "profiled_pid", "source", "base", "bucket_size", "bucket", "address", "function", "count", "truth_instructions", "truth_cycles", "truth_events"})
	ff := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, r := range rows {
		rec := []string{
			strconv.Itoa(r.machine), strconv.FormatUint(uint64(r.rec.Owner.ID()), 10), fmt.Sprintf("0x%X", r.rec.Handle),
			strconv.FormatUint(uint64(r.rec.Info.Process), 10), r.rec.Info.Source.Name(), fmt.Sprintf("0x%X", r.rec.Info.Base),
			strconv.FormatUint(uint64(r.rec.Info.BucketSize), 10), strconv.Itoa(r.bucket), fmt.Sprintf("0x%X", r.addr), r.function,
			strconv.FormatUint(uint64(r.count), 10), "", "", "",
		}
		if r.haveTruth {
			rec[11], rec[12], rec[13] = ff(r.truth.Instructions), ff(r.truth.Cycles), ff(r.truth.Events)
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// buildPprof makes a pprof profile of one profile's buckets: one sample
// per bucket, its value the bucket's count (and, second, its ground truth
// scaled to the same total), at a location at the bucket's address in the
// workload's function there.
func buildPprof(e *Machine, rec kernel.ProfileRecord, rows []row, sy *symbols) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "truth", Unit: "count"}},
		PeriodType: &profile.ValueType{Type: rec.Info.Source.Name(), Unit: units(rec.Info.Source)},
		Comments: []string{
			fmt.Sprintf("proflab machine %d, profile handle 0x%X of process %d, source %s, range 0x%X+0x%X, buckets of 2^%d bytes",
				e.Index, rec.Handle, rec.Owner.ID(), rec.Info.Source.Name(), rec.Info.Base, rec.Info.Size, rec.Info.BucketSize),
			"sample 'truth' is the ground truth of the profile's event, scaled to the samples' total",
		},
		DefaultSampleType: "samples",
	}
	if e.Kernel.Now() > 0 {
		p.DurationNanos = int64(e.Kernel.Now()) * 100
	}
	m := &profile.Mapping{ID: 1, Start: rec.Info.Base, Limit: rec.Info.Base + rec.Info.Size, File: "proflab-workload", HasFunctions: true}
	p.Mapping = []*profile.Mapping{m}
	var total, ttotal float64
	for _, r := range rows {
		total += float64(r.count)
		ttotal += r.truth.Events
	}
	scale := 0.0
	if ttotal > 0 {
		scale = total / ttotal
	}
	funcs := map[string]*profile.Function{}
	cpus := cpuLabel(rec.Info.Processors, e.Kernel.CPUCount())
	for _, r := range rows {
		name := r.function
		if name == "" {
			name = fmt.Sprintf("0x%X", r.addr)
		}
		fn := funcs[name]
		if fn == nil {
			fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name}
			if f, ok := sy.lookup(r.addr, r.addr+1); ok && f.Image != "" {
				fn.Filename = f.Image
			}
			funcs[name] = fn
			p.Function = append(p.Function, fn)
		}
		loc := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: r.addr, Line: []profile.Line{{Function: fn}}}
		p.Location = append(p.Location, loc)
		s := &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{int64(r.count), int64(r.truth.Events*scale + 0.5)},
			Label: map[string][]string{"source": {rec.Info.Source.Name()}, "processors": {cpus}}}
		p.Sample = append(p.Sample, s)
	}
	return p
}

func units(src nt.Source) string {
	if src == nt.ProfileTime {
		return "100ns"
	}
	return "events"
}

func cpuLabel(mask uint64, n int) string {
	var b bytes.Buffer
	for c := range n {
		if mask&(1<<uint(c)) != 0 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(c))
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// writeTraceFile writes the trace to path when a kernel logger ran.
func writeTraceFile(path string, reg *Registry) (bool, error) {
	ok := false
	for _, e := range reg.Machines() {
		ok = ok || len(e.Sessions) > 0
	}
	if !ok {
		return false, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return true, fmt.Errorf("cannot write %s: %w", TraceFile, err)
	}
	if _, _, err := WriteTrace(f, reg); err != nil {
		f.Close()
		return true, err
	}
	if err := f.Close(); err != nil {
		return true, fmt.Errorf("cannot write %s: %w", TraceFile, err)
	}
	return true, nil
}
