package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/halscaffold"
	"github.com/proflab/proflab/halplugins/haltest"
)

func newHalCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "hal", Short: "List and check HAL plugins"}
	cmd.AddCommand(newHalListCmd(), newHalCheckCmd(), newHalNewCmd())
	return cmd
}

func newHalNewCmd() *cobra.Command {
	var o halscaffold.Options
	cmd := &cobra.Command{
		Use:   "new NAME",
		Short: "Scaffold a new HAL plugin module that builds and passes hal check as written",
		Long: "new writes a Go module for a HAL plugin named NAME into the folder NAME (or --dir): main.go on\n" +
			"proflab's SDK (a counter with a fixed skid; with --timer a ProfileTime timer whose periods jitter),\n" +
			"a test running the conformance suite, lab.toml and scenario.lua that use it, and a\n" +
			"README. proflab is not on the Go module proxy, so go.mod builds against a local proflab checkout\n" +
			"through a replace directive: the checkout holding the current folder or this proflab executable,\n" +
			"or --proflab DIR. Then: cd NAME && go build -o proflab-hal-NAME . && proflab hal check ./proflab-hal-NAME",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			if o.Dir == "" {
				o.Dir = o.Name
			}
			if o.Proflab == "" {
				if wd, err := os.Getwd(); err == nil {
					o.Proflab = halscaffold.FindProflab(wd)
				}
			}
			if o.Proflab == "" {
				if exe, err := os.Executable(); err == nil {
					o.Proflab = halscaffold.FindProflab(filepath.Dir(exe))
				}
			}
			if o.Proflab == "" {
				return withCode(ExitUsage, errors.New("no proflab checkout holds the current folder or the proflab executable: give --proflab DIR (a clone of proflab, which the new module builds against)"))
			}
			files, err := halscaffold.Write(o)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "wrote %s: %s\n", o.Dir, strings.Join(files, ", "))
			fmt.Fprintf(w, "built against %s (replace directive in go.mod)\n\n", o.Proflab)
			pl := proflabCommand()
			fmt.Fprintf(w, "  cd %s\n  go build -o proflab-hal-%s .\n  go test ./...\n  %s hal check ./proflab-hal-%s\n  %s run scenario.lua --config lab.toml\n", o.Dir, o.Name, pl, o.Name, pl)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Dir, "dir", "", "the folder to write (new or empty; default NAME)")
	cmd.Flags().StringVar(&o.Module, "module", "", "the Go module path (default proflab-hal-NAME)")
	cmd.Flags().StringVar(&o.Proflab, "proflab", "", "the proflab checkout to build against (default: found from the current folder or the executable)")
	cmd.Flags().BoolVar(&o.Timer, "timer", false, "a timer HAL (ProfileTime in one-shot periods jittered around the interval) instead of a counter HAL")
	return cmd
}

func stderrLogger(cmd *cobra.Command, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
}

func newHalListCmd() *cobra.Command {
	var cf configFlags
	var verbose bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Show each configured HAL's sources with units, bounds and defaults",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signalContext()
			defer stop()
			cfg, err := cf.load()
			if err != nil {
				return err
			}
			host := halhost.New(cfg.HAL, halhost.Options{Logger: stderrLogger(cmd, verbose)})
			defer host.Close()
			defer host.CloseWhenDone(ctx)()
			ls := halhost.List(host, cfg)
			if ctx.Err() != nil {
				return withCode(ExitInterrupted, errors.New("hal list: stopped by a signal; its plugins were stopped"))
			}
			if err := writeList(cmd.OutOrStdout(), ls, cfg.Machine); err != nil {
				return withCode(ExitInternal, err)
			}
			for _, l := range ls {
				if l.Err != nil {
					return silentExit(ExitPlugin)
				}
			}
			return nil
		},
	}
	cf.add(cmd, true)
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "show the plugins' own log lines")
	return cmd
}

func newHalCheckCmd() *cobra.Command {
	var timeout time.Duration
	var verbose bool
	cmd := &cobra.Command{
		Use:   "check PATH",
		Short: "Run the HAL conformance suite against a plugin executable",
		Long: "check starts the plugin at PATH (or a plugin name found beside proflab, in\n" +
			"PROFLAB_PLUGIN_PATH or PATH) and runs the haltest conformance suite on it\n" +
			"across the process boundary. It exits 1 if a check fails, 3 if the plugin\n" +
			"cannot be started, 130 on Ctrl-C or SIGTERM (after stopping the plugin).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signalContext()
			defer stop()
			rs, err := halhost.Check(ctx, args[0], halhost.DefaultSearch(), timeout, stderrLogger(cmd, verbose))
			if ctx.Err() != nil {
				return withCode(ExitInterrupted, errors.New("hal check: stopped by a signal; the plugin was stopped"))
			}
			if err != nil {
				return withCode(ExitPlugin, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "checking %s\n", args[0])
			writeResults(cmd.OutOrStdout(), rs)
			if haltest.Failed(rs) {
				return withCode(ExitFailed, errors.New("the plugin failed the conformance suite"))
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "how long one call may take")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "show the plugin's own log lines")
	return cmd
}

// proflabCommand is how the printed commands run proflab from any folder:
// "proflab" when that name in PATH is this executable, else this
// executable's absolute path (run as bin/proflab, it is not in PATH, and
// the commands run after a cd).
func proflabCommand() string {
	self, err := os.Executable()
	if err != nil {
		return "proflab"
	}
	self, _ = filepath.EvalSymlinks(self)
	if p, err := exec.LookPath("proflab"); err == nil {
		if p, err = filepath.EvalSymlinks(p); err == nil && p == self {
			return "proflab"
		}
	}
	if abs, err := filepath.Abs(self); err == nil {
		return abs
	}
	return "proflab"
}
