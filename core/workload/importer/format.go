package importer

import (
	"context"
	"fmt"
)

// A format is one kind of profile the importer reads. Each format lives
// in its own file, where its entry says how to recognise its content and
// how to read it into the model; a new format is that file and a line in
// [registry]. (github.com/google/pprof/profile's parsers are organised
// the same way: each recognises its own content.)
type format struct {
	// name is the format's name (--format NAME).
	name string
	// about says in one line what the format is and which tools write it
	// (`proflab workload import --help` lists it).
	about string
	// detect says whether the content is this format. Its state (a parsed
	// profile, say) is handed to read, so nothing is parsed twice. Detect
	// must be cheap on content of other formats: detection asks every
	// format in registry order, and the first that says yes reads it.
	detect func(c *content) (state any, ok bool)
	// read fills r.m (and r.out's sample type, period and samples) from
	// r.data. Its errors are [*Error]s naming r.name (and the line, for a
	// text format).
	read func(r *reading) error
}

// reading is one import under way: what a format's read needs.
type reading struct {
	// name is the source's name as given to Import (for errors).
	name string
	// data is the content, decompressed.
	data []byte
	// state is what the format's detect returned (nil when --format
	// forced the format).
	state any
	// opt are the import's choices a format reads.
	opt readOptions
	m   *model
	// ctx ends the import (see ImportContext): the loops over lines look
	// at it (see stopped).
	ctx context.Context
	// out is what the read says of the source's samples.
	out *sampling
}

// readOptions are the import's choices a format reads (Options' fields
// of the same names).
type readOptions struct {
	Process  string
	DropIdle bool
}

// sampling is what a read says of the source's samples: Imported's
// fields of the same names.
type sampling struct {
	SampleType string
	Period     float64
	PeriodUnit string
	PeriodType string
	Samples    int64
}

// errorf is an error of the source (not of a line).
func (r *reading) errorf(format string, args ...any) error {
	return &Error{Source: r.name, Msg: fmt.Sprintf(format, args...)}
}

// lineErrorf is an error at a line of the source.
func (r *reading) lineErrorf(line int, format string, args ...any) error {
	return &Error{Source: r.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Error is an import error: the source file, the line (0: none) and what
// was wrong and what to do.
type Error struct {
	Source string
	Line   int
	Msg    string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Source, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Source, e.Msg)
}
