package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/outfile"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload/importer"
)

// profileInput is a profile file given to `workload import`: read up to
// the workload files' limit (256 MiB).
var profileInput = input.Kind{Name: "profile", Limit: input.Workload.Limit}

func newWorkloadCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workload",
		Short: "Make workloads: import real programs' profiles (pprof, perf script, folded stacks, V8, speedscope, Firefox and more)",
	}
	cmd.AddCommand(newWorkloadImportCmd())
	return cmd
}

// importFlags are `workload import`'s flags.
type importFlags struct {
	out, format, arch, process string
	symbols                    string
	dropIdle, force            bool
	memory                     byteSize
}

func newWorkloadImportCmd() *cobra.Command {
	f := importFlags{memory: byteSize(config.Default().Run.Memory)}
	cmd := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Turn a profile (pprof, perf script text, folded stacks, V8, speedscope, Firefox, stackprof…) into a workload TOML",
		Long: "Read a profile of a real program and write it as a workload TOML that m:run{workload = ...}\n" +
			"runs: the source's functions (at its addresses, relocated into the --arch machine's address\n" +
			"space), its weighted calling contexts, its processes and threads, and with several perf events\n" +
			"per-function rates. The format is detected from the content (--format forces it). The TOML\n" +
			"goes to standard output, or to -o FILE (a new file; --force replaces one, never the profile\n" +
			"itself); a one-line summary and the import's notes go to standard error. FILE - reads standard\n" +
			"input (perf script | proflab workload import -).\n\n" +
			"Limits: a profile may have 256 MiB (gzipped: once inflated; a gzip whose trailer says more is\n" +
			"refused before inflating). The import has a memory budget (--memory, 1 GiB by default, as a\n" +
			"run's): it holds at least 3 bytes per byte of profile (a binary pprof profile, 10), so a larger\n" +
			"profile is refused at once, and it stops when it exceeds the budget. A workload whose TOML\n" +
			"would pass 256 MiB, what m:run reads, is refused. Nothing is written when an import fails.\n" +
			"docs/workload-import.md describes what is kept and left out.\n\n" +
			formatList() +
			"Exit status: 0 done, 2 bad input (the message names the file, and the line of a text format),\n" +
			"a profile too large for a limit or the budget, or an -o that cannot be written.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return withCode(ExitUsage, fmt.Errorf("workload import takes one profile file, got %d arguments: proflab workload import FILE [-o OUT.toml]", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "", "write the workload TOML to this new file instead of standard output")
	fl.BoolVar(&f.force, "force", false, "with -o: replace an existing file (never the profile being imported)")
	fl.StringVar(&f.format, "format", "", "the profile's format, one of those listed below (default: detected from the content)")
	fl.StringVar(&f.arch, "arch", "x64", "the target machine's architecture, x86 or x64: images are relocated into its address space")
	fl.StringVar(&f.process, "process", "", "pprof, folded and one-process formats: the process's name (default: the main binary's or the file's name); perf, chrome-trace, gecko: import only the processes of this name; etl: of this name or pid")
	fl.StringVar(&f.symbols, "symbols", "", "etl: a symbol listing (IMAGE RVA SIZE NAME lines, docs/etl.md) naming the trace's addresses (default: NAME.symbols or trace.symbols beside the trace, when there)")
	fl.BoolVar(&f.dropIdle, "drop-idle", false, "drop idle samples (idle-loop functions, perf's swapper) instead of keeping them as busy time of those functions")
	fl.Var(&f.memory, "memory", "the import's memory budget, like 1GiB or 512MiB (0: none); a profile may have at most a third of it (a binary pprof profile, a tenth)")
	return cmd
}

// budgetContext is the context of a command's import under a memory
// budget of memory bytes (0: none): the watchdog of runs ends it when
// the heap passes the budget. stop ends the context and the watch.
func budgetContext(cmd *cobra.Command, memory int64) (ctx context.Context, stop func()) {
	ctx = cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	unwatch := luavm.WatchMemory(memory, cancel)
	return ctx, func() { unwatch(); cancel(nil) }
}

// importBudgeted imports file (data) under ctx of budgetContext and
// opt.Memory: the heap watchdog's end and the import's own count of
// its stacks are both the budget's failure, with exit status 2 as any
// bad input.
func importBudgeted(ctx context.Context, what, file string, data []byte, opt importer.Options) (*importer.Imported, error) {
	im, err := importer.ImportContext(ctx, file, data, opt)
	if err == nil {
		return im, nil
	}
	if b := budgetFailure(what, file, err); b != nil {
		return nil, b
	}
	return nil, withCode(ExitUsage, err)
}

// budgetFailure is the error of a command's work on file (what: the
// command) that the heap watchdog of budgetContext ended, nil for any
// other error.
func budgetFailure(what, file string, err error) error {
	var m *luavm.MemoryBudgetError
	if errors.As(err, &m) {
		return withCode(ExitUsage, fmt.Errorf("%s of %s exceeded its memory budget of %s (--memory; the heap reached %s), and nothing was written: raise --memory (0: none), or import a smaller profile (perf script --pid/--tid/--time, pprof -focus/-tagfocus, --process NAME)",
			what, file, luavm.FormatBytes(m.Limit), luavm.FormatBytes(m.Heap)))
	}
	return nil
}

// formatList lists the formats --format takes, a line each.
func formatList() string {
	var b strings.Builder
	b.WriteString("Formats (--format NAME):\n")
	width := 0
	for _, f := range importer.Formats() {
		width = max(width, len(f.Name))
	}
	for _, f := range importer.Formats() {
		fmt.Fprintf(&b, "  %-*s %s\n", width, f.Name, f.About)
	}
	return b.String()
}

// runImport imports file with the flags and writes the TOML. Before it
// reads anything, it checks that -o can be written; the import runs
// under the memory budget (the watchdog of runs, which stops it), and a
// workload whose TOML would be larger than a workload file may be is
// refused before anything is written.
func runImport(cmd *cobra.Command, file string, f importFlags) error {
	format, err := importer.ParseFormat(f.format)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("--format: %w", err))
	}
	if f.arch != "x86" && f.arch != "x64" {
		return withCode(ExitUsage, fmt.Errorf("--arch %q: give x86 or x64", f.arch))
	}
	if f.out != "" {
		if err := outfile.Check(f.out, f.force, profileStat(cmd, file), "the profile being imported ("+profileName(file)+")"); err != nil {
			return withCode(ExitUsage, fmt.Errorf("-o %s: %w", f.out, err))
		}
	}
	var data []byte
	if file == "-" {
		// perf script | proflab workload import -
		file = "stdin"
		data, err = input.Read(profileInput, file, cmd.InOrStdin())
	} else {
		data, err = input.ReadFile(profileInput, file)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return withCode(ExitUsage, fmt.Errorf("profile %s does not exist: check the path", file))
		}
		return withCode(ExitUsage, err)
	}
	ctx, stop := budgetContext(cmd, int64(f.memory))
	defer stop()
	im, err := importBudgeted(ctx, "workload import", file, data, importer.Options{Format: format, Arch: f.arch, Process: f.process, DropIdle: f.dropIdle, Memory: int64(f.memory), Symbols: f.symbols})
	data = nil // the profile is no longer needed: its memory goes back to the budget
	if err != nil {
		return err
	}
	if err := im.CheckReadable(); err != nil {
		return withCode(ExitUsage, err)
	}
	write := func(w io.Writer) error { return im.WriteTOML(output.ContextWriter{Ctx: ctx, W: w}) }
	if f.out == "" {
		err = write(cmd.OutOrStdout())
	} else {
		err = outfile.Write(f.out, write)
	}
	if err != nil {
		if b := budgetFailure("workload import", file, err); b != nil {
			return b
		}
		if f.out == "" {
			return withCode(ExitUsage, fmt.Errorf("writing the workload to standard output: %w", err))
		}
		return withCode(ExitUsage, fmt.Errorf("-o %s: %w", f.out, err))
	}
	w := cmd.ErrOrStderr()
	fmt.Fprintln(w, im.Summary())
	for _, n := range im.Warnings {
		fmt.Fprintln(w, "  warning:", n)
	}
	for _, n := range im.Notes {
		fmt.Fprintln(w, "  note:", n)
	}
	return nil
}

// profileStat is the profile's file (a path, or - for standard input),
// or nil when it is not a file.
func profileStat(cmd *cobra.Command, in string) fs.FileInfo {
	var fi fs.FileInfo
	var err error
	if in == "-" {
		f, ok := cmd.InOrStdin().(*os.File)
		if !ok {
			return nil
		}
		fi, err = f.Stat()
	} else {
		fi, err = os.Stat(in)
	}
	if err != nil {
		return nil
	}
	return fi
}

// profileName names the profile in messages.
func profileName(in string) string {
	if in == "-" {
		return "standard input"
	}
	return in
}
