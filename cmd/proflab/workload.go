package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/workload/importer"
)

// profileInput is a profile file given to `workload import`: read up to
// the workload files' limit (256 MiB).
var profileInput = input.Kind{Name: "profile", Limit: input.Workload.Limit}

func newWorkloadCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workload",
		Short: "Make workloads: import real programs' profiles (pprof, perf script, folded stacks)",
	}
	cmd.AddCommand(newWorkloadImportCmd())
	return cmd
}

// importFlags are `workload import`'s flags.
type importFlags struct {
	out, format, arch, process string
	dropIdle                   bool
}

func newWorkloadImportCmd() *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Turn a profile (pprof, perf script text, folded stacks, V8, speedscope, Firefox, stackprof…) into a workload TOML",
		Long: "Read a profile of a real program and write it as a workload TOML that m:run{workload = ...}\n" +
			"runs: the source's functions (at its addresses, relocated into the --arch machine's address\n" +
			"space), its weighted calling contexts, its processes and threads, and with several perf events\n" +
			"per-function rates. The format is detected from the content (--format forces it). The TOML\n" +
			"goes to standard output, or to -o FILE; a one-line summary and the import's notes go to\n" +
			"standard error. FILE - reads standard input (perf script | proflab workload import -).\n" +
			"docs/workload-import.md describes what is kept and what is left out.\n" +
			formatList() +
			"Exit status: 0 done, 2 bad input (the message names the file, and the line of a text format).",
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
	fl.StringVarP(&f.out, "out", "o", "", "write the workload TOML to this file instead of standard output")
	fl.StringVar(&f.format, "format", "", "the profile's format, one of those listed below (default: detected from the content)")
	fl.StringVar(&f.arch, "arch", "x64", "the target machine's architecture, x86 or x64: images are relocated into its address space")
	fl.StringVar(&f.process, "process", "", "pprof, folded and one-process formats: the process's name (default: the main binary's or the file's name); perf, chrome-trace, gecko: import only the processes of this name")
	fl.BoolVar(&f.dropIdle, "drop-idle", false, "drop idle samples (idle-loop functions, perf's swapper) instead of keeping them as busy time of those functions")
	return cmd
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

// runImport imports file with the flags and writes the TOML.
func runImport(cmd *cobra.Command, file string, f importFlags) error {
	format, err := importer.ParseFormat(f.format)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("--format: %w", err))
	}
	if f.arch != "x86" && f.arch != "x64" {
		return withCode(ExitUsage, fmt.Errorf("--arch %q: give x86 or x64", f.arch))
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
	im, err := importer.Import(file, data, importer.Options{Format: format, Arch: f.arch, Process: f.process, DropIdle: f.dropIdle})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	text, err := im.TOML()
	if err != nil {
		return withCode(ExitInternal, err)
	}
	if f.out == "" {
		if _, err := cmd.OutOrStdout().Write(text); err != nil {
			return withCode(ExitUsage, fmt.Errorf("writing the workload to standard output: %w", err))
		}
	} else if err := writeAtomically(f.out, text); err != nil {
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

// writeAtomically writes data to path through a temporary file in the
// same folder, so that a failed write leaves no half a workload. A path
// that is not a regular file (-o /dev/null, a pipe) is written to, not
// replaced, and a symbolic link's target is replaced, not the link.
func writeAtomically(path string, data []byte) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		return werr
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Chmod(0o644)
	}
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}
