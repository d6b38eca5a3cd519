// Command proflab is the laboratory's command line: it runs Lua scenarios
// against the kernel model, manages HAL plugins and configurations, and
// runs sweeps. It holds flags and exit codes only; the work is in core/.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/version"
)

func main() {
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// execute runs the command line args and returns the process exit code.
func execute(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	code := exitCodeOf(err)
	if !isSilent(err) {
		fmt.Fprintln(stderr, "proflab:", err)
	}
	return code
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "proflab",
		Short:         "A laboratory for the Windows NT kernel's profiling machinery",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.String(),
	}
	root.SetVersionTemplate("proflab {{.Version}}\n")
	root.SetFlagErrorFunc(flagError) // every command's: the subcommands inherit it
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newRunCmd(), newTestCmd(), newHalCmd(), newConfigCmd(), newSweepCmd(), newReportCmd(), newWorkloadCmd(), newCompareCmd(), newProfileCmd())
	root.AddCommand(newToolCmds()...)
	return root
}
