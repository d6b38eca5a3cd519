package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/proflab/proflab/core/input"
)

// symbolsInput is a symbol listing (--symbols FILE, trace.symbols): read
// up to the workload files' limit.
var symbolsInput = input.Kind{Name: "symbol listing", Limit: input.Workload.Limit}

// SymbolsBeside are the symbol listings an .etl import looks for beside
// the trace when no --symbols is given, in order: NAME.symbols for a
// trace NAME.etl or NAME.etl.zip, then trace.symbols (what the lab
// writes beside its trace.etl).
func SymbolsBeside(trace string) []string {
	dir, base := filepath.Dir(trace), filepath.Base(trace)
	stem := base
	for _, ext := range []string{".zip", ".etl"} {
		if strings.HasSuffix(strings.ToLower(stem), ext) {
			stem = stem[:len(stem)-len(ext)]
		}
	}
	out := []string{filepath.Join(dir, stem+".symbols")}
	if stem != "trace" {
		out = append(out, filepath.Join(dir, "trace.symbols"))
	}
	return out
}

// symbolsFor reads the symbol listing of an .etl import: opt.Symbols,
// else the first of SymbolsBeside(source) that exists in the trace's
// folder (none for standard input). It returns the listing's content and file name (nil and ""
// without one).
func symbolsFor(source string, opt Options) ([]byte, string, error) {
	if opt.Symbols != "" {
		data, err := input.ReadFile(symbolsInput, opt.Symbols)
		if err != nil {
			return nil, "", &Error{Source: source, Msg: fmt.Sprintf("--symbols: %v", err)}
		}
		return data, opt.Symbols, nil
	}
	if source == "" || source == "stdin" || opt.NoSymbolsBeside {
		return nil, "", nil
	}
	for _, cand := range SymbolsBeside(source) {
		if !sameFolder(cand, source) {
			continue // a link out of the trace's folder: not followed
		}
		data, err := input.ReadFile(symbolsInput, cand)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", &Error{Source: source, Msg: fmt.Sprintf("the symbol listing beside the trace: %v (move it away, or name another with --symbols)", err)}
		}
		return data, cand, nil
	}
	return nil, "", nil
}

// sameFolder says whether the listing found beside a trace is, once every
// symbolic link is resolved, in the trace's folder: a listing that links
// elsewhere is not read (a scenario may read workloads only from the
// folders it is allowed, and the trace's folder is one of them). A listing
// that does not exist is in no folder.
func sameFolder(listing, trace string) bool {
	l, err := filepath.EvalSymlinks(listing)
	if err != nil {
		return false
	}
	t, err := filepath.EvalSymlinks(filepath.Dir(trace))
	return err == nil && filepath.Dir(l) == t
}
