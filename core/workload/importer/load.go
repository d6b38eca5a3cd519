package importer

import (
	"context"
	"fmt"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/workload"
)

// Load reads a workload file for a machine of architecture arch ("x86"
// or "x64"): a workload TOML, or a profile in a format [Detect] knows,
// imported on the spot as `proflab workload import --arch arch` would.
// The TOML form is tried first; a file that is neither is reported with
// the TOML error (what a hand-written workload's author needs). im is
// the import's provenance, nil for a TOML file.
func Load(path, arch string) (spec *workload.Spec, im *Imported, err error) {
	data, err := input.ReadFile(input.Workload, path)
	if input.Refused(err) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("workload: %w", err)
	}
	return parse(path, data, LoadOptions{Arch: arch})
}

// LoadOptions are what a run asks of a workload file it imports: the
// machine's architecture and the import's choices a scenario may make
// (m:run{ workload = PATH, import = { process, format } }).
type LoadOptions struct {
	// Arch is the machine's architecture, "x86" or "x64".
	Arch string
	// Process keeps the samples of the processes of that name or pid
	// (Options.Process: perf, etl) or names the process (pprof, folded).
	Process string
	// Format forces the profile's format ("" detects it); a file with a
	// forced format is never read as a workload TOML.
	Format Format
	// Symbols is an .etl trace's symbol listing (Options.Symbols; "":
	// one beside the trace), and SymbolsSum the hex sha256 of its
	// content as the caller read it: part of the cache's key, so that an
	// edited listing names the functions again.
	Symbols, SymbolsSum string
	// Memory is the run's memory budget in bytes (0: none): the import
	// holds it as `proflab workload import --memory` does (Options.Memory),
	// the bytes of its stacks counted as they are allocated, and a
	// workload the cache keeps is answered only to a load whose budget
	// holds what its import counted. Not part of the cache's key: the
	// budget decides whether a workload is made, not what it is.
	Memory int64
	// Ctx ends the import early (the run's context: its time budget, the
	// heap watchdog, Ctrl-C); nil never does.
	Ctx context.Context
}

// options are the import's Options of a load.
func (o LoadOptions) options() Options {
	return Options{Arch: o.Arch, Process: o.Process, Format: o.Format, Symbols: o.Symbols, Memory: o.Memory}
}

// context is the import's context.
func (o LoadOptions) context() context.Context {
	if o.Ctx == nil {
		return context.Background()
	}
	return o.Ctx
}

// admit is the error of a cached workload whose import counted more
// bytes than o's budget holds: the same error its import would stop
// with under that budget, so that a budget holds whichever run of a
// sweep imported the file first.
func (o LoadOptions) admit(path string, ld Loaded) error {
	if o.Memory <= 0 || ld.Imported == nil || ld.Imported.held <= o.Memory {
		return nil
	}
	return budgetStopped(path, &BudgetError{Budget: o.Memory, Held: ld.Imported.held})
}

// key names the options in a cache key: the architecture alone when
// the import has no other choice, as before the choices existed.
func (o LoadOptions) key() string {
	if o.Process == "" && o.Format == "" && o.Symbols == "" {
		return o.Arch
	}
	return fmt.Sprintf("%s process=%q format=%q symbols=%q@%s", o.Arch, o.Process, o.Format, o.Symbols, o.SymbolsSum)
}

// parse makes the workload of a file's content: a workload TOML, or a
// profile imported with o.
func parse(path string, data []byte, o LoadOptions) (spec *workload.Spec, im *Imported, err error) {
	if isGzip(data) || o.Format != "" {
		// never a TOML: a gzipped profile, or what its gzip says; or a
		// profile of the format the scenario named
		im, err = ImportContext(o.context(), path, data, o.options())
		if err != nil {
			return nil, nil, err
		}
		return im.Spec, im, nil
	}
	spec, tomlErr := workload.Parse(path, data)
	if tomlErr == nil {
		return spec, nil, nil
	}
	if _, derr := Detect(data); derr != nil {
		return nil, nil, tomlErr
	}
	im, err = ImportContext(o.context(), path, data, o.options())
	if err != nil {
		return nil, nil, err
	}
	return im.Spec, im, nil
}
