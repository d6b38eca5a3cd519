package output

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
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
	// ETL writes each kernel logger machine's sessions as an .etl file
	// and its symbol listing (output.etl; etl.go).
	ETL bool
}

// All is every output.
var All = Options{Pprof: true, Trace: true, ETL: true}

// Write writes the outputs of every registered machine into dir (which
// it creates): buckets.csv, one pprof profile per profile with counts, one
// per source of the kernel logger's sampled events (samples-*.pb.gz), and
// the Perfetto trace when a kernel logger ran. It returns the summary with the
// files it wrote (relative to dir), in a fixed order.
func Write(dir string, reg *Registry) (Summary, error) { return WriteWith(dir, reg, All) }

// WriteWith is Write with the optional outputs opts chooses (buckets.csv
// is always written).
func WriteWith(dir string, reg *Registry, opts Options) (Summary, error) {
	return WriteContext(context.Background(), dir, reg, opts)
}

// WriteContext is WriteWith that stops soon after ctx ends (the run's
// time and memory budgets, which writing its outputs is part of): the
// error then wraps context.Cause(ctx), and dir holds what was written so
// far (core/scenario writes into a temporary folder that it removes).
//
// The outputs are streamed: a profile at a time, its buckets read from
// the pages of its buffer that were ever written (a buffer's untouched
// pages stay untouched: see kernel.ProfileRecord.EachCounter), its rows
// of buckets.csv written as they are made, its pprof profile built,
// written and let go before the next profile's.
func WriteContext(ctx context.Context, dir string, reg *Registry, opts Options) (Summary, error) {
	sum := Summarize(reg)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sum, fmt.Errorf("cannot create the output folder: %w", err)
	}
	buckets := &bucketsFile{path: filepath.Join(dir, BucketsFile), ctx: ctx}
	var pprofs []string
	var accs []ProfileAccuracy
	err := eachProfile(ctx, reg, func(e *Machine, rows []row, p *namedProfile) error {
		if err := buckets.write(rows); err != nil {
			return err
		}
		if p == nil {
			return nil
		}
		accs = append(accs, profileAccuracy(*p))
		if !opts.Pprof {
			return nil
		}
		prof, err := buildPprof(ctx, e, p.rec, p.rows)
		if err != nil {
			return err
		}
		if err := writeProfile(ctx, dir, p.file, prof); err != nil {
			return err
		}
		pprofs = append(pprofs, p.file)
		return nil
	})
	if cerr := buckets.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return sum, err
	}
	if buckets.f != nil {
		sum.Files = append(sum.Files, BucketsFile)
	}
	sum.Accuracy = accs
	if err := writeAccuracy(ctx, dir, accs, &sum); err != nil {
		return sum, err
	}
	sum.Files = append(sum.Files, pprofs...)
	for _, e := range reg.Machines() {
		if !opts.Pprof {
			break
		}
		for _, p := range samplesProfiles(e) {
			if err := writeProfile(ctx, dir, p.file, p.prof); err != nil {
				return sum, err
			}
			sum.Files = append(sum.Files, p.file)
		}
	}
	if opts.ETL {
		files, err := writeETLFiles(ctx, dir, reg)
		sum.Files = append(sum.Files, files...)
		if err != nil {
			return sum, err
		}
	}
	if !opts.Trace {
		return sum, nil
	}
	info, err := writeTraceFile(ctx, filepath.Join(dir, TraceFile), reg, opts.MaxTrace)
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

// writeProfile writes a pprof profile to dir/file.
func writeProfile(ctx context.Context, dir, file string, p *profile.Profile) error {
	f, err := os.Create(filepath.Join(dir, file))
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", file, err)
	}
	werr := p.Write(ContextWriter{ctx, f})
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("cannot write %s: %w", file, werr)
	}
	return nil
}

// ContextWriter is W that fails with the cause of Ctx once Ctx has
// ended, so that an output written under a run's budgets stops when the
// budgets end Ctx.
type ContextWriter struct {
	Ctx context.Context
	W   io.Writer
}

var _ io.Writer = ContextWriter{}

// Write writes p to W, unless Ctx has ended.
func (c ContextWriter) Write(p []byte) (int, error) {
	if c.Ctx.Err() != nil {
		return 0, context.Cause(c.Ctx)
	}
	return c.W.Write(p)
}

// checkEvery is how many rows the loops make between looks at their
// context.
const checkEvery = 4096

// stopped is ctx's cause once it has ended, looked at on every
// checkEvery-th n.
func stopped(ctx context.Context, n int) error {
	if n%checkEvery != 0 || ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
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

// row is one bucket of one profile. A profile can have millions, each
// held until its profile is written: its record and function are
// shared.
type row struct {
	machine   int
	rec       *kernel.ProfileRecord
	bucket    int
	addr      uint64
	function  string
	fn        *workload.Func // the function at the bucket's start ("" name: none; never nil)
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

// writeAccuracy writes accuracy.csv for the bucket profiles' accuracy
// (each one's line is in the summary).
func writeAccuracy(ctx context.Context, dir string, accs []ProfileAccuracy, sum *Summary) error {
	if len(accs) == 0 {
		return nil
	}
	b, err := accuracyCSV(accs)
	if err == nil {
		err = writeFile(ctx, filepath.Join(dir, AccuracyFile), b)
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", AccuracyFile, err)
	}
	sum.Files = append(sum.Files, AccuracyFile)
	return nil
}

// writeFile writes data to path, unless ctx has ended.
func writeFile(ctx context.Context, path string, data []byte) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return os.WriteFile(path, data, 0o644)
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

// lookup is the function at addr, or the first one starting inside
// [addr, end) (the symbols' own: not to be changed).
func (sy *symbols) lookup(addr, end uint64) (*workload.Func, bool) {
	i := sort.Search(len(sy.funcs), func(i int) bool { return sy.funcs[i].Addr > addr })
	if i > 0 {
		if f := &sy.funcs[i-1]; addr-f.Addr < f.Size {
			return f, true
		}
	}
	if i < len(sy.funcs) && sy.funcs[i].Addr < end {
		return &sy.funcs[i], true
	}
	return &noFunction, false
}

// noFunction is a row's function where its bucket holds none.
var noFunction workload.Func

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

// eachProfile calls fn with every profile of every machine, open or
// closed (Machine.profiles), in order: the machine, the profile's rows of buckets.csv (each bucket with a
// count or some ground truth) and, for a profile that counted or was
// started, the profile with those rows for its pprof profile and
// accuracy (nil for the others). A profile whose buffer is gone is
// skipped. The rows of one profile are made at a time, from its
// buffer's written pages and its truth; fn's error, or ctx's cause,
// stops it.
func eachProfile(ctx context.Context, reg *Registry, fn func(e *Machine, rows []row, p *namedProfile) error) error {
	for _, e := range reg.Machines() {
		sy := newSymbols(e.Sim)
		for _, pe := range e.profiles() {
			rec := pe.rec
			if rec.Info.Size == 0 {
				continue
			}
			rows, total, ok, err := profileRows(ctx, e, sy, pe)
			if err != nil {
				return err
			}
			if !ok {
				continue // its buffer is gone: nothing to report
			}
			var p *namedProfile
			if total > 0 || rec.Info.Started {
				p = &namedProfile{
					file:    fmt.Sprintf("profile-m%d-pid%d-h%X-%s.pb.gz", e.Index, rec.Owner.ID(), rec.Handle, rec.Info.Source.Name()),
					machine: e.Index,
					rec:     rec,
					rows:    rows,
					truth:   functionTruthFor(e.Sim, rec),
				}
			}
			if err := fn(e, rows, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// profileRows are the rows of one profile, by bucket: every bucket
// whose counter is not zero (read from the buffer's written pages only),
// and every bucket where the truth says something executed; total is
// the sum of the counts. ok is false when the buffer cannot be read (it
// is gone).
func profileRows(ctx context.Context, e *Machine, sy *symbols, pe profileEntry) (rows []row, total uint64, ok bool, err error) {
	rec := pe.rec
	truth, nTruth := truthFor(e.Sim, rec)
	counters := int(rec.Info.BufferSize / 4)
	var executed []int // the buckets the truth has a row for, ascending
	for j, t := range truth {
		if j < nTruth && j < counters && (t.Events != 0 || t.Cycles != 0) {
			executed = append(executed, j)
		}
	}
	sort.Ints(executed)
	bs := uint64(rec.Info.BucketSize)
	add := func(j int, c uint32) error {
		addr := rec.Info.Base + uint64(j)<<bs
		r := row{machine: e.Index, rec: &rec, bucket: j, addr: addr, count: c, truth: truth[j], haveTruth: j < nTruth}
		r.fn, _ = sy.lookup(addr, addr+1<<bs)
		r.function = r.fn.Name
		rows = append(rows, r)
		total += uint64(c)
		return stopped(ctx, len(rows))
	}
	k := 0 // the next bucket of executed
	read := false
	err = pe.eachCounter(func(j int, c uint32) error {
		read = true
		for ; k < len(executed) && executed[k] <= j; k++ {
			if executed[k] < j {
				if err := add(executed[k], 0); err != nil {
					return err
				}
			}
		}
		return add(j, c)
	})
	if err != nil && !read && ctx.Err() == nil {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	for ; k < len(executed); k++ {
		if err := add(executed[k], 0); err != nil {
			return nil, 0, false, err
		}
	}
	return rows, total, true, nil
}

// bucketsFile is buckets.csv, made on its first row and written as the
// rows come.
type bucketsFile struct {
	path string
	ctx  context.Context
	f    *os.File
	b    *bufio.Writer
	w    *csv.Writer
}

// write writes rows.
func (bf *bucketsFile) write(rows []row) error {
	if len(rows) == 0 {
		return nil
	}
	if bf.f == nil {
		f, err := os.Create(bf.path)
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", BucketsFile, err)
		}
		bf.f, bf.b = f, bufio.NewWriterSize(ContextWriter{bf.ctx, f}, 256<<10)
		bf.w = csv.NewWriter(bf.b)
		_ = bf.w.Write([]string{"machine", "owner_pid", "handle", "profiled_pid", "source", "base", "bucket_log2", "bucket", "address", "function", "count", "truth_instructions", "truth_cycles", "truth_events"})
	}
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
		if err := bf.w.Write(rec); err != nil {
			return fmt.Errorf("cannot write %s: %w", BucketsFile, err)
		}
	}
	return nil
}

// close flushes and closes the file, if it was made.
func (bf *bucketsFile) close() error {
	if bf.f == nil {
		return nil
	}
	bf.w.Flush()
	err := bf.w.Error()
	if err == nil {
		err = bf.b.Flush()
	}
	if cerr := bf.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", BucketsFile, err)
	}
	return nil
}

// writeTraceFile writes the trace to path when a kernel logger ran.
func writeTraceFile(ctx context.Context, path string, reg *Registry, max int64) (TraceInfo, error) {
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
	info, err := WriteTraceLimited(ContextWriter{ctx, f}, reg, max)
	if err != nil {
		f.Close()
		return info, err
	}
	if err := f.Close(); err != nil {
		return info, fmt.Errorf("cannot write %s: %w", TraceFile, err)
	}
	return info, nil
}
