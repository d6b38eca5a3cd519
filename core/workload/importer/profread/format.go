package profread

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// A Format is one kind of profile the importer reads: its entry says how
// to recognise its content and how to read it into the model. Each format
// lives in its own file of a format package (importer/native, jsonprof,
// calltree) as an exported variable; a new format is that file and a line
// in the importer's registry (core/workload/importer/registry.go), which
// lists the formats in the order detection asks them.
// (github.com/google/pprof/profile's parsers are organised the same way:
// each recognises its own content.)
type Format struct {
	// Name is the format's name (--format NAME).
	Name string
	// About says in one line what the format is and which tools write it
	// (`proflab workload import --help` lists it).
	About string
	// Detect says whether the content is this format. Its state (a parsed
	// profile, say) is handed to Read as Reading.State, so nothing is
	// parsed twice. Detect must be cheap on content of other formats:
	// detection asks every format in the registry's order, and the first
	// that says yes reads it.
	Detect func(c *Content) (state any, ok bool)
	// Read fills r.Model (and r.Sampling) from r.Data. Its errors are
	// [*Error]s naming r.Name (and the line, for a text format): see
	// Reading.Errorf and Reading.LineErrorf.
	Read func(r *Reading) error
}

// Reading is one import under way: what a format's Read gets, and what
// it fills.
type Reading struct {
	// Name is the source's name as given to the import (for errors, and
	// the default process name of formats that have none).
	Name string
	// Data is the content, decompressed (and UTF-16 text made UTF-8).
	Data []byte
	// State is what the format's Detect returned (nil when --format
	// forced the format: Read then parses Data itself).
	State any
	// Options are the import's choices a format reads.
	Options Options
	// Model is what Read fills.
	Model *profmodel.Model
	// Ctx ends the import (a memory budget's watchdog, Ctrl-C): Read's
	// loops over lines and samples look at it (EachLine does,
	// profmodel.Stopped for other loops) and return its cause.
	Ctx context.Context
	// Sampling is what Read says of the source's samples.
	Sampling *Sampling
	// MaxContent is the most content, decompressed, the import reads (0:
	// no limit): a format that inflates content itself (the .etl of a
	// zip archive) refuses more.
	MaxContent int64

	// newlines are the offsets of Data's newlines, found the first time
	// a position is asked for (see LineCol).
	newlines []int64
	indexed  bool
}

// LineCol is the 1-based line and column of byte off of r.Data. A
// format keeps byte offsets and asks for their line only when a message
// needs it: the first call indexes Data's newlines (once, in linear
// time), each call after costs a binary search, so that a file of one
// line and a hundred thousand events is not read from its start for
// every event (a minified Chrome trace was quadratic).
func (r *Reading) LineCol(off int64) (line, col int) {
	if !r.indexed {
		r.newlines = newlineOffsets(r.Data)
		r.indexed = true
	}
	off = max(0, min(off, int64(len(r.Data))))
	n, _ := slices.BinarySearch(r.newlines, off) // newlines before off
	start := int64(0)
	if n > 0 {
		start = r.newlines[n-1] + 1
	}
	return n + 1, int(off-start) + 1
}

// newlineOffsets are the offsets of data's newlines, in order.
func newlineOffsets(data []byte) []int64 {
	var out []int64
	for i, base := 0, 0; ; {
		i = bytes.IndexByte(data[base:], '\n')
		if i < 0 {
			return out
		}
		out = append(out, int64(base+i))
		base += i + 1
	}
}

// Options are the import's choices a format reads (importer.Options'
// fields of the same names).
type Options struct {
	// Process is --process: the process to keep, or the name to give the
	// one process of a format that names none (each format says which).
	Process string
	// DropIdle is --drop-idle: drop the samples whose leaf is an idle
	// function (profmodel.IsIdle) rather than keep them as busy time.
	DropIdle bool
	// Symbols is a symbol listing's content (the etl format's --symbols,
	// or the listing found beside the trace; see core/etl.ReadSymbols),
	// and SymbolsName its file's name ("" without one).
	Symbols     []byte
	SymbolsName string
}

// Sampling is what a read says of the source's samples: the importer
// copies it into importer.Imported's fields of the same names.
type Sampling struct {
	// SampleType is the sample value used as weight ("cpu/nanoseconds",
	// perf's event name, "count" for folded stacks).
	SampleType string
	// Period is the sampling period (0: unknown), in PeriodUnit, of
	// PeriodType events ("cpu", "cycles").
	Period     float64
	PeriodUnit string
	PeriodType string
	// Samples is the number of samples the workload is built from.
	Samples int64
	// CPUs is how many processors the source was recorded on, where it
	// says (an .etl trace's header); 0: it does not.
	CPUs int
}

// Errorf is an error of the source (not of a line).
func (r *Reading) Errorf(format string, args ...any) error {
	return &Error{Source: r.Name, Msg: fmt.Sprintf(format, args...)}
}

// LineErrorf is an error at a line of the source.
func (r *Reading) LineErrorf(line int, format string, args ...any) error {
	return &Error{Source: r.Name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Error is an import error: the source file, the line (0: none) and what
// was wrong and what to do (importer.Error is this type).
type Error struct {
	// Source is the source's name as given to the import.
	Source string
	// Line is the line of a text source (from 1), 0 for none.
	Line int
	// Msg says what was wrong and what to do.
	Msg string
}

// Error is "source:line: msg", or "source: msg" without a line.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Source, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Source, e.Msg)
}
