package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/scenario"
	"github.com/proflab/proflab/core/sim"
)

// signalContext is cancelled on Ctrl-C (SIGINT) and on SIGTERM (how batch
// schedulers stop a job): the run in progress stops, its HAL plugins are
// stopped and its partial results are written as usual. A second signal
// ends proflab at once (the plugins die with it).
func signalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

func newRunCmd() *cobra.Command {
	var flags runFlags
	var out string
	var force bool
	var maxTrace byteSize
	cmd := &cobra.Command{
		Use:   "run FILE.lua",
		Short: "Run one scenario",
		Long: "Run one Lua scenario in a fresh sandboxed state. The scenario's log goes to standard output,\n" +
			"then each failed check with its file:line and a summary line. Exit status: 0 when every check\n" +
			"passed and nothing raised, 1 otherwise (2: bad input, 3: HAL plugin failure, 4: proflab bug,\n" +
			"130: stopped by Ctrl-C or SIGTERM, after writing --out for what ran).\n\n" +
			"Before the run, every configured HAL is started and configured with its settings, so that a\n" +
			"wrong setting or a missing plugin is reported at once, with its file, line and key. The run\n" +
			"has a time and a memory budget (--timeout, --memory; by default the configuration's [run]\n" +
			"timeout and memory; 0: none): exceeding one fails it (exit 1) at the scenario's line. Writing\n" +
			"--out has the same budgets (the time budget again, from the end of the run): past one, nothing\n" +
			"is written and the run fails (exit 1), its error naming --out.\n\n" +
			"--out DIR (or the configuration's output.dir) writes the run's outputs into DIR, which must be\n" +
			"new or empty (--force replaces its contents); the files appear all at once when the run ends:\n" +
			scenario.OutputFiles,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return withCode(ExitUsage, fmt.Errorf("run takes one scenario, got %d; to run several, use `proflab test %s`", len(args), strings.Join(args, " ")))
			}
			if len(args) == 0 {
				return withCode(ExitUsage, errors.New("run needs a scenario: proflab run FILE.lua"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// Signals are caught from the start: a Ctrl-C while the HALs
			// start ends the command after stopping them, not by the default
			// handler (plugins run in their own process groups).
			ctx, stop := signalContext()
			defer stop()
			opt, hals, closeHALs, err := flags.options(cmd)
			if err != nil {
				return err
			}
			defer closeHALs()
			opt.HALs = hals // the preflight's plugins serve the run
			if out == "" && opt.Setup.Config != nil {
				out = opt.Setup.Config.Output.Dir
			}
			if out, err = checkRunOut(out, force); err != nil {
				return err
			}
			opt.File = args[0]
			stdout := cmd.OutOrStdout()
			opt.Log = stdout
			if errw := cmd.ErrOrStderr(); isTerminal(errw) {
				// a long run shows its progress on the terminal
				ctx = sim.WithProgress(ctx, progressEvery, (&progressLine{w: errw}).report)
			}
			r := scenario.Run(ctx, opt)
			defer r.Outputs.Close() // the spooled events of its logger sessions
			if r.Error == nil {
				// a parameter nobody read changed nothing: a misspelt
				// --set must not pass for an experiment
				for _, name := range r.UnreadParams() {
					w := fmt.Sprintf("--set %s: the scenario never read lab.params.%s, so it changed nothing (is the name misspelt?)", name, name)
					r.Warnings = append(r.Warnings, w)
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
				}
			}
			if out != "" {
				if ctx.Err() != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "writing outputs into %s… (Ctrl-C again stops at once)\n", out)
				}
				warnings, err := scenario.WriteResultWith(out, r, scenario.WriteOptions{Replace: force, MaxTrace: int64(maxTrace)})
				if err != nil && !outputsOverBudget(cmd, &r, out, err) {
					return withCode(ExitUsage, fmt.Errorf("--out %s: %w", out, err))
				}
				for _, w := range warnings {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
				}
			}
			scenario.WriteDetails(stdout, r, "")
			fmt.Fprintln(stdout, scenario.Summary(r))
			if r.Passed() {
				return nil
			}
			return silentExit(exitCodeFor(r))
		},
	}
	flags.register(cmd)
	cmd.Flags().StringVar(&out, "out", "", "write the run's outputs (result.json, config.toml, profiles, …; see above) into this new or empty folder")
	cmd.Flags().Var(&maxTrace, "max-trace", "the largest Perfetto trace --out writes, like 1GiB (default 1GiB; past it the trace stops after its last whole event, with a warning)")
	cmd.Flags().BoolVar(&force, "force", false, "with --out: replace the contents of a folder that is not empty")
	return cmd
}

func newTestCmd() *cobra.Command {
	var flags runFlags
	var jobs int
	var verbose bool
	cmd := &cobra.Command{
		Use:   "test PATH...",
		Short: "Run scenarios: files, or every .lua file in folders",
		Long: "Run every scenario found in the files and folders given (.lua files, recursively; files whose\n" +
			"names start with \"_\" are helper modules), each in its own Lua state. Prints a line per scenario\n" +
			"with its failures and closes with \"N passed, N failed\". Each scenario has the budgets of\n" +
			"proflab run (--timeout, --memory). Exit status 1 if any failed, 130 if Ctrl-C or SIGTERM\n" +
			"stopped it.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signalContext() // from the start, as run does
			defer stop()
			base, _, closeHALs, err := flags.options(cmd)
			if err != nil {
				return err
			}
			closeHALs() // each worker starts its own plugins
			files, err := scenario.Discover(args)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			runs := make([]scenario.Options, len(files))
			for i, f := range files {
				runs[i] = base
				runs[i].File = f
			}
			stdout := cmd.OutOrStdout()
			var totals scenario.Totals
			scenario.RunAll(ctx, runs, jobs, func(_ int, r scenario.Result) {
				scenario.WriteTestResult(stdout, r, verbose)
				totals.Add(r)
				r.Outputs.Close() // the spooled events of its logger sessions
			})
			fmt.Fprintln(stdout, totals.String())
			if ctx.Err() != nil {
				return silentExit(ExitInterrupted)
			}
			if totals.Failed > 0 {
				return silentExit(ExitFailed)
			}
			return nil
		},
	}
	flags.register(cmd)
	cmd.Flags().IntVarP(&jobs, "jobs", "j", runtime.NumCPU(), "scenarios run at once")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "also print each scenario's log")
	return cmd
}

// outputsOverBudget reports whether err, writing --out out, is the run's
// budget exceeded while writing its outputs (scenario.OutputBudgetError):
// the run then failed of it (its error, when it had none; otherwise the
// message goes to standard error), and nothing was written.
func outputsOverBudget(cmd *cobra.Command, r *scenario.Result, out string, err error) bool {
	var be *scenario.OutputBudgetError
	if !errors.As(err, &be) {
		return false
	}
	msg := fmt.Sprintf("--out %s: %s", out, be.Message)
	if r.Error == nil {
		r.Error = &scenario.Error{Kind: be.Kind, Message: msg}
		r.Status = scenario.StatusError
	} else {
		fmt.Fprintf(cmd.ErrOrStderr(), "proflab: %s\n", msg)
	}
	return true
}

// checkRunOut resolves --out (through a symbolic link to where it
// points) and checks, before the run, that the run's outputs can go
// there: a new or empty folder (or one to replace, with force) that can be
// written. "" stays "" (no outputs).
func checkRunOut(out string, force bool) (string, error) {
	if out == "" {
		return "", nil
	}
	dir, err := scenario.ResolveOut(out)
	if err == nil {
		err = scenario.CheckOut(dir, force)
	}
	if err == nil {
		err = scenario.CheckWritable(dir)
	}
	if err != nil {
		return "", withCode(ExitUsage, fmt.Errorf("--out %s: %w", out, err))
	}
	return dir, nil
}
