package profread

import (
	"context"
	"fmt"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// A format is one kind of profile the importer reads. Each format lives
// in its own file, where its entry says how to recognise its content and
// how to read it into the model; a new format is that file and a line in
// [registry]. (github.com/google/pprof/profile's parsers are organised
// the same way: each recognises its own content.)
type Format struct {
	// Name is the format's name (--format NAME).
	Name string
	// About says in one line what the format is and which tools write it
	// (`proflab workload import --help` lists it).
	About string
	// Detect says whether the content is this format. Its state (a parsed
	// profile, say) is handed to read, so nothing is parsed twice. Detect
	// must be cheap on content of other formats: detection asks every
	// format in registry order, and the first that says yes reads it.
	Detect func(c *Content) (state any, ok bool)
	// Read fills r.m (and r.out's sample type, period and samples) from
	// r.data. Its errors are [*Error]s naming r.name (and the line, for a
	// text format).
	Read func(r *Reading) error
}

// Reading is one import under way: what a format's read needs.
type Reading struct {
	// Name is the source's name as given to Import (for errors).
	Name string
	// Data is the content, decompressed.
	Data []byte
	// State is what the format's detect returned (nil when --format
	// forced the format).
	State any
	// Options are the import's choices a format reads.
	Options Options
	Model   *profmodel.Model
	// Ctx ends the import (see ImportContext): the loops over lines look
	// at it (see stopped).
	Ctx context.Context
	// Sampling is what the read says of the source's samples.
	Sampling *Sampling
}

// Options are the import's choices a format reads (Options' fields
// of the same names).
type Options struct {
	Process  string
	DropIdle bool
}

// Sampling is what a read says of the source's samples: Imported's
// fields of the same names.
type Sampling struct {
	SampleType string
	Period     float64
	PeriodUnit string
	PeriodType string
	Samples    int64
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
