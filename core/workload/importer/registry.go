package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
)

// A format is one kind of profile the importer reads. Each format lives
// in its own file, where its entry says how to recognise its content and
// how to read it into the model; a new format is that file and a line in
// [registry]. (github.com/google/pprof/profile's parsers are organised
// the same way: each recognises its own content.)
type format struct {
	// name is the format's name (--format NAME).
	name Format
	// about says in one line what the format is and which tools write it
	// (`proflab workload import --help` lists it).
	about string
	// detect says whether the content is this format. Its state (a parsed
	// profile, say) is handed to read, so nothing is parsed twice. Detect
	// must be cheap on content of other formats: detection asks every
	// format in registry order, and the first that says yes reads it.
	detect func(c *content) (state any, ok bool)
	// read fills r.m (and r.im's sample type, period and samples) from
	// r.data. Its errors are [*Error]s naming r.name (and the line, for a
	// text format).
	read func(r *reading) error
}

// registry is every format, in the order detection asks them: the JSON
// formats (each recognises its top-level keys, see jsonsniff.go), the
// text formats whose lines are distinctive, folded stacks (a loose
// pattern) after them, binary pprof (a parse attempt) last.
var registry = []*format{
	// The JSON formats: each recognises its top-level keys (jsonsniff.go).
	&cpuprofileFormat,
	&chromeTraceFormat,
	&speedscopeFormat,
	&geckoFormat,
	&stackprofFormat,
	&perfFormat,
	&instrumentsFormat,
	&callgrindFormat,
	&ghcprofFormat,
	&pmcstatFormat,
	&dtraceFormat,
	&foldedFormat,
	&pprofFormat,
}

// content is what detection looks at: the decompressed bytes and, when
// they are text, their first lines.
type content struct {
	data []byte
	// text says the start of data is text (see looksText: UTF-8 or not,
	// without NUL bytes).
	text bool
	// lines are up to 20 of the first non-blank lines that are not `#`
	// comments, when text.
	lines []string
	// json is the JSON sniff the JSON formats share (see jsonTop).
	json *jsonTop
}

// newContent is data's content for detection.
func newContent(data []byte) *content {
	c := &content{data: data, text: looksText(data)}
	if c.text {
		c.lines = firstLines(data, 20)
	}
	return c
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
	opt   Options
	m     *model
	// ctx ends the import (see ImportContext): the loops over lines look
	// at it (see stopped).
	ctx context.Context
	im  *Imported
}

// errorf is an error of the source (not of a line).
func (r *reading) errorf(format string, args ...any) error {
	return &Error{Source: r.name, Msg: fmt.Sprintf(format, args...)}
}

// lineErrorf is an error at a line of the source.
func (r *reading) lineErrorf(line int, format string, args ...any) error {
	return &Error{Source: r.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// FormatInfo describes a format the importer reads.
type FormatInfo struct {
	// Name is what --format takes.
	Name Format
	// About says what the format is and which tools write it.
	About string
}

// Formats lists the formats the importer reads, in the order detection
// tries them.
func Formats() []FormatInfo {
	out := make([]FormatInfo, len(registry))
	for i, f := range registry {
		out[i] = FormatInfo{Name: f.name, About: f.about}
	}
	return out
}

// formatNamed is the registry's entry of name, or nil.
func formatNamed(name Format) *format {
	for _, f := range registry {
		if f.name == name {
			return f
		}
	}
	return nil
}

// formatNames are the formats' names, for messages: "pprof, perf or
// folded".
func formatNames() string {
	names := make([]string, len(registry))
	for i, f := range registry {
		names[i] = string(f.name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ParseFormat reads a format's name (one of [Formats]); "" is the zero
// Format (detect by content).
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if f == "" || formatNamed(f) != nil {
		return f, nil
	}
	return "", fmt.Errorf("unknown profile format %q: give %s", s, formatNames())
}

// detected is detection's result: the format and its state.
type detected struct {
	format *format
	state  any
}

// detect names data's format (data is decompressed already).
func detect(data []byte) (detected, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return detected{}, errors.New("the file is empty: there is no profile to import")
	}
	c := newContent(data)
	for _, f := range registry {
		if state, ok := f.detect(c); ok {
			return detected{format: f, state: state}, nil
		}
	}
	if what := otherProfileOf(c); what != "" {
		return detected{}, fmt.Errorf("the file is %s (it is none of the formats this importer reads: %s)", what, formatNames())
	}
	return detected{}, errUnknownFormat()
}

// errUnknownFormat is detection's failure.
func errUnknownFormat() error {
	return fmt.Errorf("the content is not a profile this importer knows (%s; `proflab workload import --help` says what each is): if it is one of them, force it with --format NAME to see what is wrong", formatNames())
}
