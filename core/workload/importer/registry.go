package importer

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/proflab/proflab/core/suggest"
	"github.com/proflab/proflab/core/workload/importer/calltree"
	"github.com/proflab/proflab/core/workload/importer/etlprof"
	"github.com/proflab/proflab/core/workload/importer/jsonprof"
	"github.com/proflab/proflab/core/workload/importer/native"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// registry is every format, in the order detection asks them (the first
// that recognises the content reads it): the JSON formats (each
// recognises its top-level keys, see profread.JSONTop), the text formats
// whose lines are distinctive, folded stacks (a loose pattern) after
// them, binary pprof (a parse attempt) last. A new format is a file in a
// format package (native, jsonprof, calltree) and its line here.
var registry = []*profread.Format{
	// The JSON formats: each recognises its top-level keys.
	jsonprof.CPUProfile,
	jsonprof.ChromeTrace,
	jsonprof.Speedscope,
	jsonprof.Gecko,
	jsonprof.Stackprof,
	// The text formats whose first lines are distinctive (GHC's JSON
	// report is recognised with its text one).
	native.Perf,
	calltree.Instruments,
	calltree.Callgrind,
	calltree.GHCProf,
	native.Pmcstat,
	native.DTrace,
	// Folded stacks: a loose pattern, after the others.
	native.Folded,
	// Windows' .etl traces (and .etl.zip): a binary header.
	etlprof.ETL,
	// Binary pprof: a parse attempt, last.
	native.Pprof,
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
		out[i] = FormatInfo{Name: Format(f.Name), About: f.About}
	}
	return out
}

// formatNamed is the registry's entry of name, or nil.
func formatNamed(name Format) *profread.Format {
	for _, f := range registry {
		if Format(f.Name) == name {
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
		names[i] = f.Name
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
	names := make([]string, len(registry))
	for i, r := range registry {
		names[i] = r.Name
	}
	if near := suggest.Closest(string(f), names); near != "" {
		return "", fmt.Errorf("unknown profile format %q (did you mean %q?): give %s", s, near, formatNames())
	}
	return "", fmt.Errorf("unknown profile format %q: give %s", s, formatNames())
}

// detected is detection's result: the format and its state.
type detected struct {
	format *profread.Format
	state  any
}

// detect names data's format (data is decompressed already).
func detect(data []byte) (detected, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return detected{}, errors.New("the file is empty: there is no profile to import")
	}
	c := profread.NewContent(data)
	for _, f := range registry {
		if state, ok := f.Detect(c); ok {
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
