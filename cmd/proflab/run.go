package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	luart "github.com/proflab/proflab/core/lua"
	"github.com/proflab/proflab/core/scenario"
)

// scenarioFlags are the flags run and test share.
type scenarioFlags struct {
	config  string
	sets    []string
	seed    uint64
	timeout time.Duration
}

func (f *scenarioFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.config, "config", "", "configuration file (TOML); default: the embedded configuration")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "a parameter for lab.params, key=value (value read as a TOML literal); repeatable")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "the run's seed (math.random, machines' default seed)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", scenario.DefaultTimeout, "wall-clock budget per scenario (0: none)")
}

// options builds the run options shared by every scenario of a command.
func (f *scenarioFlags) options() (scenario.Options, error) {
	params, err := scenario.ParseSets(f.sets)
	if err != nil {
		return scenario.Options{}, withCode(ExitUsage, err)
	}
	setup, err := loadSetup(f.config)
	if err != nil {
		return scenario.Options{}, err
	}
	timeout := f.timeout
	if timeout == 0 {
		timeout = -1 // the flag's 0 means no budget
	}
	return scenario.Options{Params: params, Seed: f.seed, Timeout: timeout, Setup: setup}, nil
}

// loadSetup reads the configuration for the runs.
//
// TODO(config): core/config is being written; when it lands, load the file
// here (or the embedded default when path is "") and fill the Setup with
// the machine defaults and the HAL plugin host. Until then only the file's
// existence is checked.
func loadSetup(path string) (scenario.Setup, error) {
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return scenario.Setup{}, withCode(ExitUsage, fmt.Errorf("--config: %w", err))
		}
	}
	return scenario.Setup{ConfigFile: path}, nil
}

// signalContext is cancelled on Ctrl-C.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// exitCodeFor maps a failed run to the process's exit code.
func exitCodeFor(r scenario.Result) int {
	if r.Error != nil {
		switch r.Error.Kind {
		case luart.KindInput:
			return ExitUsage
		case luart.KindPlugin:
			return ExitPlugin
		case luart.KindBug:
			return ExitInternal
		}
	}
	return ExitFailed
}

func newRunCmd() *cobra.Command {
	var flags scenarioFlags
	var out string
	cmd := &cobra.Command{
		Use:   "run FILE.lua",
		Short: "Run one scenario",
		Long: "Run one Lua scenario in a fresh sandboxed state. The scenario's log goes to standard output,\n" +
			"then each failed check with its file:line and a summary line. Exit status: 0 when every check\n" +
			"passed and nothing raised, 1 otherwise (2: bad input, 3: HAL plugin failure, 4: proflab bug).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := flags.options()
			if err != nil {
				return err
			}
			opt.File = args[0]
			stdout := cmd.OutOrStdout()
			opt.Log = stdout
			ctx, stop := signalContext()
			defer stop()
			r := scenario.Run(ctx, opt)
			if out != "" {
				if err := scenario.WriteResult(out, r); err != nil {
					return withCode(ExitUsage, fmt.Errorf("--out %s: %w", out, err))
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
	cmd.Flags().StringVar(&out, "out", "", "write result.json (and log.txt) into this folder")
	return cmd
}

func newTestCmd() *cobra.Command {
	var flags scenarioFlags
	var jobs int
	var verbose bool
	cmd := &cobra.Command{
		Use:   "test PATH...",
		Short: "Run scenarios: files, or every .lua file in folders",
		Long: "Run every scenario found in the files and folders given (.lua files, recursively; files whose\n" +
			"names start with \"_\" are helper modules), each in its own Lua state. Prints a line per scenario\n" +
			"with its failures and closes with \"N passed, N failed\". Exit status 1 if any failed.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			base, err := flags.options()
			if err != nil {
				return err
			}
			files, err := scenario.Discover(args)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			runs := make([]scenario.Options, len(files))
			for i, f := range files {
				runs[i] = base
				runs[i].File = f
			}
			ctx, stop := signalContext()
			defer stop()
			stdout := cmd.OutOrStdout()
			var totals scenario.Totals
			scenario.RunAll(ctx, runs, jobs, func(_ int, r scenario.Result) {
				scenario.WriteTestResult(stdout, r, verbose)
				totals.Add(r)
			})
			fmt.Fprintln(stdout, totals.String())
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
