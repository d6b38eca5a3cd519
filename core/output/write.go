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
	// Warnings say what the outputs left out (a trace cut at its size
	// limit), for the run's result and the terminal.
	Warnings []string `json:"warnings,omitempty"`
	// Accuracy is each profile's distance from the truth (accuracy.csv
	// has it per function).
	Accuracy []ProfileAccuracy `json:"accuracy,omitempty"`
}

// MachineSummary is one machine's part of a Summary.
type MachineSummary struct {
	Index int `json:"index"`
	// The machine as the scenario built it: the Windows version (and
	// build), architecture, processors' vendor, number and clock, PEBS,
	// its HALs in order, and the simulator's seed.
	Version string   `json:"version"`
	Build   int      `json:"build,omitempty"`
	Arch    string   `json:"arch"`
	Vendor  string   `json:"cpu_vendor"`
	CPUs    int      `json:"cpus"`
	FreqMHz int      `json:"freq_mhz"`
	PEBS    bool     `json:"pebs"`
	HALs    []string `json:"hals"`
	Seed    uint64   `json:"seed"`
	Runs    int      `json:"runs"`
	// Intervals are, per run, the intervals the hardware had when the
	// run started, by source (a timer's period in 100 ns units, a
	// counter's events per overflow; the distinct values over the
	// processors).
	Intervals []map[string][]uint64 `json:"intervals_by_run,omitempty"`
	Time      uint64                `json:"simulated_time_100ns"`
	// Interrupts delivered by the simulator, by source name.
	Interrupts map[string]uint64 `json:"interrupts"`
	// InterruptsByCPU by processor, then source name.
	InterruptsByCPU []map[string]uint64 `json:"interrupts_by_cpu"`
	// InterruptCount is each processor's KPRCB InterruptCount (every
	// interrupt, m:interrupt's included), labelled with the processor.
	InterruptCount []CPUInterruptCount `json:"interrupt_count"`
}

// CPUInterruptCount is one processor's KPRCB InterruptCount.
type CPUInterruptCount struct {
	CPU            int    `json:"cpu"`
	InterruptCount uint32 `json:"kprcb_interrupt_count"`
}

// Summarize sums the machines' simulator results.
func Summarize(reg *Registry) Summary {
	var out Summary
	for _, e := range reg.Machines() {
		cfg := e.Kernel.Config()
		ms := MachineSummary{Index: e.Index, Interrupts: map[string]uint64{}, Time: e.Kernel.Now(),
			Version: cfg.Version.String(), Build: cfg.Version.Build, Arch: cfg.Arch.String(), Vendor: cfg.Vendor,
			CPUs: e.Kernel.CPUCount(), FreqMHz: cfg.FreqMHz, PEBS: cfg.PEBS, HALs: []string{}}
		for _, h := range cfg.HALs {
			ms.HALs = append(ms.HALs, h.Name())
		}
		if e.Sim != nil {
			ms.Seed = e.Sim.Seed()
		}
		n := e.Kernel.CPUCount()
		ms.InterruptsByCPU = make([]map[string]uint64, n)
		for c := range n {
			ms.InterruptsByCPU[c] = map[string]uint64{}
			ms.InterruptCount = append(ms.InterruptCount, CPUInterruptCount{CPU: c, InterruptCount: e.Kernel.InterruptCount(c)})
		}
		if e.Sim != nil {
			for _, r := range e.Sim.Results() {
				ms.Runs++
				ms.Intervals = append(ms.Intervals, r.Intervals)
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

// Options choose the optional outputs (the configuration's [output]).
type Options struct {
	// Pprof writes a pprof profile per profile (output.pprof).
	Pprof bool
	// Trace writes the Perfetto trace when a kernel logger ran (output.trace).
	Trace bool
	// MaxTrace bounds the trace's size in bytes (0: DefaultMaxTrace;
	// negative: no bound): past it the trace stops after its last whole
	// packet, and the summary warns.
	MaxTrace int64
}

// All is every output.
var All = Options{Pprof: true, Trace: true}

// Write writes the outputs of every registered machine into dir (which
// it creates): buckets.csv, one pprof profile per profile with counts, one
// per source of the kernel logger's sampled events (samples-*.pb.gz), and
// the Perfetto trace when a kernel logger ran. It returns the summary with the
// files it wrote (relative to dir), in a fixed order.
func Write(dir string, reg *Registry) (Summary, error) { return WriteWith(dir, reg, All) }

// WriteWith is Write with the optional outputs opts chooses (buckets.csv
// is always written).
func WriteWith(dir string, reg *Registry, opts Options) (Summary, error) {
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
	if err := writeAccuracy(dir, profs, &sum); err != nil {
		return sum, err
	}
	if !opts.Pprof {
		profs = nil
	}
	for _, e := range reg.Machines() {
		if opts.Pprof {
			profs = append(profs, samplesProfiles(e)...)
		}
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
	if !opts.Trace {
		return sum, nil
	}
	info, err := writeTraceFile(filepath.Join(dir, TraceFile), reg, opts.MaxTrace)
	if err != nil {
		return sum, err
	}
	if info.OK {
		sum.Files = append(sum.Files, TraceFile)
	}
	if info.Truncated {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%s was cut at %s (%d events, the run's beginning): the size limit; raise it with --max-trace (or run less simulated time with the kernel logger on)",
			TraceFile, byteSize(info.Bytes), info.Events))
	}
	return sum, nil
}

// byteSize renders n bytes in the largest binary unit that keeps one
// decimal ("1.0 GiB").
func byteSize(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v, u = v/1024, u+1
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}

// row is one bucket of one profile.
type row struct {
	machine   int
	rec       kernel.ProfileRecord
	bucket    int
	addr      uint64
	function  string
	fn        workload.Func // the function at the bucket's start ("" name: none)
	count     uint32
	truth     sim.BucketTruth
	haveTruth bool
}

type namedProfile struct {
	file    string
	prof    *profile.Profile
	machine int                  // a bucket profile's machine,
	rec     kernel.ProfileRecord // its record,
	rows    []row                // its buckets
	truth   []sim.FunctionEvents // and its truth per function
}

// writeAccuracy writes accuracy.csv for the bucket profiles, and puts
// each one's line in the summary.
func writeAccuracy(dir string, profs []namedProfile, sum *Summary) error {
	for _, p := range profs {
		sum.Accuracy = append(sum.Accuracy, profileAccuracy(p))
	}
	if len(sum.Accuracy) == 0 {
		return nil
	}
	b, err := accuracyCSV(sum.Accuracy)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, AccuracyFile), b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", AccuracyFile, err)
	}
	sum.Files = append(sum.Files, AccuracyFile)
	return nil
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
			if f.Inline {
				continue // no address: no symbol, as a PE image has none for it
			}
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

// truthFor sums a profile's bucket truth over every run: by bucket
// number, the buckets where something executed, and how many buckets the
// truth covers (0: no run has truth for the profile).
func truthFor(s *sim.Sim, rec kernel.ProfileRecord) (map[int]sim.BucketTruth, int) {
	if s == nil {
		return nil, 0
	}
	out := map[int]sim.BucketTruth{}
	n := 0
	for _, r := range s.Results() {
		for _, p := range r.Profiles {
			if p.Owner != rec.Owner.ID() || p.Handle != rec.Handle || p.Base != rec.Info.Base || p.BucketSize != rec.Info.BucketSize {
				continue
			}
			n = max(n, p.NBuckets)
			for _, b := range p.Buckets {
				t := out[b.Index]
				t.Index, t.Addr = b.Index, b.Addr
				t.Instructions += b.Instructions
				t.Cycles += b.Cycles
				t.Events += b.Events
				out[b.Index] = t
			}
		}
	}
	return out, n
}

// functionTruthFor sums a profile's truth per function over every run,
// in the order the functions first appear.
func functionTruthFor(s *sim.Sim, rec kernel.ProfileRecord) []sim.FunctionEvents {
	if s == nil {
		return nil
	}
	var out []sim.FunctionEvents
	at := map[string]int{}
	for _, r := range s.Results() {
		for _, p := range r.Profiles {
			if p.Owner != rec.Owner.ID() || p.Handle != rec.Handle || p.Base != rec.Info.Base || p.BucketSize != rec.Info.BucketSize {
				continue
			}
			for _, f := range p.Functions {
				i, ok := at[f.Ref]
				if !ok {
					i = len(out)
					at[f.Ref] = i
					out = append(out, sim.FunctionEvents{Name: f.Name, Ref: f.Ref})
				}
				out[i].Events += f.Events
			}
		}
	}
	return out
}

// collect reads every profile of the run, open or closed
// (Machine.profiles), into buckets.csv's rows and a pprof profile per
// profile that counted or is still started.
func collect(reg *Registry) ([]row, []namedProfile, error) {
	var rows []row
	var profs []namedProfile
	for _, e := range reg.Machines() {
		sy := newSymbols(e.Sim)
		for _, pe := range e.profiles() {
			rec := pe.rec
			if rec.Info.Size == 0 {
				continue
			}
			counts, err := pe.counters()
			if err != nil {
				continue // its buffer is gone: nothing to report
			}
			truth, nTruth := truthFor(e.Sim, rec)
			bs := uint64(rec.Info.BucketSize)
			var total uint64
			var prow []row
			for j, c := range counts {
				addr := rec.Info.Base + uint64(j)<<bs
				t, ht := truth[j], j < nTruth
				if c == 0 && (!ht || (t.Events == 0 && t.Cycles == 0)) {
					continue
				}
				r := row{machine: e.Index, rec: rec, bucket: j, addr: addr, count: c, truth: t, haveTruth: ht}
				if f, ok := sy.lookup(addr, addr+1<<bs); ok {
					r.function, r.fn = f.Name, f
				}
				prow = append(prow, r)
				total += uint64(c)
			}
			rows = append(rows, prow...)
			if total == 0 && !rec.Info.Started {
				continue
			}
			profs = append(profs, namedProfile{
				file:    fmt.Sprintf("profile-m%d-pid%d-h%X-%s.pb.gz", e.Index, rec.Owner.ID(), rec.Handle, rec.Info.Source.Name()),
				prof:    buildPprof(e, rec, prow),
				machine: e.Index,
				rec:     rec,
				rows:    prow,
				truth:   functionTruthFor(e.Sim, rec),
			})
		}
	}
	return rows, profs, nil
}

func bucketsCSV(rows []row) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"machine", "owner_pid", "handle", "profiled_pid", "source", "base", "bucket_log2", "bucket", "address", "function", "count", "truth_instructions", "truth_cycles", "truth_events"})
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

// writeTraceFile writes the trace to path when a kernel logger ran.
func writeTraceFile(path string, reg *Registry, max int64) (TraceInfo, error) {
	ok := false
	for _, e := range reg.Machines() {
		ok = ok || len(e.Sessions) > 0
	}
	if !ok {
		return TraceInfo{}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return TraceInfo{OK: true}, fmt.Errorf("cannot write %s: %w", TraceFile, err)
	}
	info, err := WriteTraceLimited(f, reg, max)
	if err != nil {
		f.Close()
		return info, err
	}
	if err := f.Close(); err != nil {
		return info, fmt.Errorf("cannot write %s: %w", TraceFile, err)
	}
	return info, nil
}
