// Package importer turns profiles of real programs into workloads. It is
// the entry point users and other packages call: [Import] (and
// [ImportContext], [Detect], [Formats], [ParseFormat]) reads a profile's
// bytes, gzipped or not, into an [Imported]: a [workload.Spec] with where
// it came from, which [Imported.WriteTOML] writes as a workload file;
// [Load] and [Cache] read a workload file that is a workload TOML or a
// profile. An import is a pure function from a file's bytes to a workload
// with the source's calling contexts (weighted stacks, their inlined
// frames marked), its addresses where it has them (each the physical
// function's, relocated into the target machine's address space) and,
// from files with several events, per-function rates.
//
// The import is split by job into the packages below this one:
//
//   - profmodel: the model a profile is read into (images, functions,
//     processes, threads, weighted stacks), its layout in the target's
//     address space and the workload it writes;
//   - profread: the contract a format implements (a Format: Detect and
//     Read) and the helpers formats read text and JSON with;
//   - native: the formats of native-code samplers: pprof (every form
//     github.com/google/pprof/profile parses), Linux `perf script` text,
//     folded stacks (FlameGraph's stackcollapse format), FreeBSD's
//     pmcstat -G callchains, DTrace stack aggregations;
//   - jsonprof: the JSON of browsers' and language runtimes' profilers:
//     V8's .cpuprofile and Chrome traces, speedscope's format, the
//     Firefox Profiler's and Ruby stackprof's;
//   - calltree: other tools' call trees and call graphs: Instruments'
//     deep copy, callgrind's files, GHC's .prof reports.
//
// This package keeps the registry (registry.go), which lists the formats
// in the order detection asks them: a new format is a file in a format
// package and a line in the registry (and a [Format] constant for Go
// callers). The format packages import profread and profmodel, never
// this package; importtest makes profiles for tests.
//
// docs/workload-import.md describes the rules: detection, what is kept,
// inlining, the alignment and padding of functions, relocation, the idle
// names, threads' busy shares and what is left out.
package importer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer/etlprof"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// Format is a profile format an importer reads.
type Format string

// The formats.
const (
	// Pprof is pprof's profile.proto (gzipped or not) and the legacy
	// forms github.com/google/pprof/profile parses (gperftools CPU
	// profiles, legacy heap, contention, thread and Java text profiles).
	Pprof Format = "pprof"
	// Perf is the text `perf script` prints, with or without call graphs.
	Perf Format = "perf"
	// Folded is folded stacks: `root;caller;leaf COUNT` lines.
	Folded Format = "folded"
	// CPUProfile is a V8 CPU profile: the `.cpuprofile` JSON that `node
	// --cpu-prof`, Chrome DevTools (JavaScript Profiler, "Save profile") and
	// V8's inspector write.
	CPUProfile Format = "cpuprofile"
	// ChromeTrace is a Chrome trace (the Trace Event Format's JSON) holding
	// V8's CPU profile events.
	ChromeTrace Format = "chrome-trace"
	// Speedscope is speedscope's own file format.
	Speedscope Format = "speedscope"
	// Gecko is the Firefox Profiler's JSON: the Gecko profile format the
	// browser writes and the processed format profiler.firefox.com saves.
	Gecko Format = "gecko"
	// Stackprof is Ruby stackprof's JSON.
	Stackprof Format = "stackprof"
	// Instruments is the text of Instruments' "Deep Copy" of a call tree
	// (macOS Time Profiler: select the tree's top row, Edit > Deep Copy).
	Instruments Format = "instruments"
	// Callgrind is the callgrind profile format (valgrind --tool=callgrind,
	// also cachegrind's output and other tools that write the format).
	Callgrind Format = "callgrind"
	// GHCProf is the cost-centre profile a GHC program writes with
	// `+RTS -p` (or -P, -pa), or as JSON with `+RTS -pj`: prog.prof.
	GHCProf Format = "ghcprof"
	// Pmcstat is the callchain report of FreeBSD's hwpmc sampler, `pmcstat
	// -R file -G out.txt` (pmcstat -G).
	Pmcstat Format = "pmcstat"
	// DTrace is the text of a DTrace stack aggregation: `dtrace -n
	// 'profile-997 { @[ustack()] = count(); }'`, with stack() or ustack(),
	// with or without scalar keys (execname, pid) before the stack: what
	// FlameGraph's stackcollapse.pl reads.
	DTrace Format = "dtrace"
	// ETL is Windows' trace file (.etl), what wpr, xperf, tracelog and
	// PerfView write, or PerfView's .etl.zip holding one: its CPU samples
	// with their stacks, processes, threads, images and .NET methods.
	ETL Format = "etl"
)

// Options are an import's choices.
type Options struct {
	// Format forces the format ("" detects it from the content).
	Format Format
	// Arch is the target machine's architecture, "x86" or "x64" (""
	// means x64): images are relocated into its address space.
	Arch string
	// Process names the process of a pprof or folded profile (default:
	// the main mapping's file name, else the source file's base name); for
	// perf it keeps only the samples of the processes of that name.
	Process string
	// DropIdle drops the samples whose leaf is an idle function (see
	// [profmodel.IdleFunctions]) and perf's swapper (pid 0) samples, instead of
	// keeping them as busy time of those functions.
	DropIdle bool
	// Memory is the import's memory budget in bytes (0: none; `proflab
	// workload import --memory`): the content may have at most
	// Memory/[MemoryPerByte] bytes (and [MaxDecompressed]), a larger one
	// is refused before it is read. The budget itself is kept by whoever
	// watches the heap and ends [ImportContext]'s context.
	Memory int64
	// Symbols is a symbol listing's path for an .etl trace (--symbols; see
	// core/etl.ReadSymbols): "" looks beside the trace (SymbolsBeside).
	Symbols string
	// NoSymbolsBeside keeps an .etl import from looking for a listing
	// beside the trace.
	NoSymbolsBeside bool
}

// maxContent is the most content, decompressed, the import reads, and
// what to say of a larger one.
func (o Options) maxContent() (int64, string) {
	if o.Memory > 0 && o.Memory/MemoryPerByte < MaxDecompressed {
		max := o.Memory / MemoryPerByte
		return max, fmt.Sprintf("an import holds at least %d bytes of memory per byte of profile, so a memory budget of %s reads at most %s: raise the budget (--memory), or %s",
			MemoryPerByte, input.Size(o.Memory), input.Size(max), trimAdvice)
	}
	return MaxDecompressed, fmt.Sprintf("a profile may have at most %s (a workload file's limit), gzipped or not: %s", input.Size(MaxDecompressed), trimAdvice)
}

// Imported is an imported workload with where it came from.
type Imported struct {
	// Spec is the workload.
	Spec *workload.Spec
	// Format is the source's format.
	Format Format
	// Source is the source file's name as given to [Import].
	Source string
	// SHA256 is the hexadecimal SHA-256 of the source file's bytes (as
	// given, before any decompression).
	SHA256 string
	// Period is the sampling period (0: unknown), in PeriodUnit, of
	// PeriodType events ("cpu", "cycles").
	Period     float64
	PeriodUnit string
	PeriodType string
	// Samples is the number of samples the workload was built from.
	Samples int64
	// CPUs is how many processors the source was recorded on, where it
	// says (an .etl trace); 0: it does not.
	CPUs int
	// SampleType is the sample value used as weight ("cpu/nanoseconds",
	// perf's event name, "count" for folded stacks).
	SampleType string
	// Warnings say why the workload may not be where the program ran:
	// the source measured something else (memory, waiting, cache
	// misses…). `proflab workload import` prints them, the TOML's header
	// keeps them, and a run that imports the file logs them.
	Warnings []string
	// Notes are what the import left out or changed, for people to read.
	Notes []string

	// target is the machine the workload was laid out for (CheckReadable
	// resolves it for that machine).
	target profmodel.Target
	// held is what the import counted against a memory budget (the
	// content and the stacks, profmodel's Charge).
	held int64
}

// Import reads the profile data (the bytes of the file name) into a
// workload. Errors are [*Error]s naming the file (and the line, for the
// text formats) and saying what to do.
func Import(name string, data []byte, opt Options) (*Imported, error) {
	return ImportContext(context.Background(), name, data, opt)
}

// ImportContext is [Import] that stops soon after ctx ends (the
// watchdog of a memory budget, Ctrl-C): its error then wraps
// context.Cause(ctx) (errors.Is and errors.As find it).
func ImportContext(ctx context.Context, name string, data []byte, opt Options) (*Imported, error) {
	t, err := profmodel.TargetFor(opt.Arch)
	if err != nil {
		return nil, &Error{Source: name, Msg: err.Error()}
	}
	sum := sha256.Sum256(data)
	max, why := opt.maxContent()
	if int64(len(data)) > max && !isGzip(data) {
		return nil, &Error{Source: name, Msg: fmt.Sprintf("the profile has %s, more than the %s an import reads: %s", input.Size(int64(len(data))), input.Size(max), why)}
	}
	data, err = gunzip(name, data, max, why)
	if err != nil {
		return nil, err
	}
	data, enc := decodeText(data)
	if opt.Memory > 0 && (opt.Format == Pprof || opt.Format == "" && !profread.LooksText(data) && !etlprof.IsTrace(data)) && int64(len(data)) > opt.Memory/PprofMemoryPerByte {
		return nil, &Error{Source: name, Msg: fmt.Sprintf("the profile is %s of binary (pprof) profile, and pprof's parser holds about %d bytes of memory per byte of it, which cannot be stopped half way: a memory budget of %s reads at most %s of it: raise the budget (--memory), or trim the profile (pprof -focus/-tagfocus/-nodecount -proto, fewer seconds recorded)",
			input.Size(int64(len(data))), PprofMemoryPerByte, input.Size(opt.Memory), input.Size(opt.Memory/PprofMemoryPerByte))}
	}
	var det detected
	if opt.Format == "" {
		if det, err = detect(data); err != nil {
			return nil, &Error{Source: name, Msg: err.Error()}
		}
	} else if det.format = formatNamed(opt.Format); det.format == nil {
		return nil, &Error{Source: name, Msg: fmt.Sprintf("unknown format %q: give %s", opt.Format, formatNames())}
	}
	im := &Imported{Format: Format(det.format.Name), Source: name, SHA256: hex.EncodeToString(sum[:]), target: t}
	m := profmodel.New(ctx)
	m.SetBudget(opt.Memory, int64(len(data)))
	if enc != "" {
		m.Note("the text is in %s: read as such", enc)
	}
	r := &profread.Reading{Name: name, Data: data, State: det.state, Options: profread.Options{Process: opt.Process, DropIdle: opt.DropIdle}, Model: m, Sampling: &profread.Sampling{}, Ctx: ctx, MaxContent: max}
	if det.format.Name == string(ETL) {
		if r.Options.Symbols, r.Options.SymbolsName, err = symbolsFor(name, opt); err != nil {
			return nil, err
		}
	}
	err = det.format.Read(r)
	var be *profmodel.BudgetError
	if errors.As(m.Err(), &be) {
		return nil, budgetStopped(name, be)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, stoppedError(name, ctx)
		}
		return nil, err
	}
	if m.Err() != nil || ctx.Err() != nil {
		return nil, stoppedError(name, ctx)
	}
	if err := m.Layout(t); err != nil {
		return nil, &Error{Source: name, Msg: err.Error()}
	}
	if ctx.Err() != nil {
		return nil, stoppedError(name, ctx)
	}
	im.SampleType, im.Period, im.PeriodUnit, im.PeriodType, im.Samples = r.Sampling.SampleType, r.Sampling.Period, r.Sampling.PeriodUnit, r.Sampling.PeriodType, r.Sampling.Samples
	im.CPUs = r.Sampling.CPUs
	im.Spec = m.Spec(workloadName(name))
	im.held = m.Held()
	im.Notes = append(im.Notes, m.Notes()...)
	im.Warnings = append(im.Warnings, m.Warnings()...)
	return im, nil
}

// BudgetError is the cause of an import stopped by its memory budget
// (Options.Memory, LoadOptions.Memory): errors.As finds it in the
// import's error, which is an [*Error] too.
type BudgetError = profmodel.BudgetError

// budgetError is the error of an import stopped by its memory budget:
// the [*Error] people read, naming the source and what to do, and the
// [*BudgetError] that callers tell it by.
type budgetError struct {
	err    *Error
	budget *BudgetError
}

func (e *budgetError) Error() string   { return e.err.Error() }
func (e *budgetError) Unwrap() []error { return []error{e.err, e.budget} }

// budgetStopped is the error of the import of name that be stopped.
func budgetStopped(name string, be *BudgetError) error {
	return &budgetError{err: &Error{Source: name, Msg: fmt.Sprintf("the import stopped: %v: raise the budget (--memory), or %s", be, trimAdvice)}, budget: be}
}

// stoppedError is the error of an import whose ctx ended.
func stoppedError(name string, ctx context.Context) error {
	return fmt.Errorf("%s: the import stopped: %w", name, context.Cause(ctx))
}

// Error is an import error: the source file, the line (0: none) and what
// was wrong and what to do. The formats make them (profread.Error).
type Error = profread.Error

// workloadName is the workload's name: the source file's base name.
func workloadName(name string) string { return filepath.Base(name) }
