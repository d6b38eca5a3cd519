package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/proflab/proflab/core/scenario"
	"github.com/proflab/proflab/core/sweep"
)

func newSweepCmd() *cobra.Command {
	var fl sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep FILE.toml",
		Short: "Run a sweep: a scenario over a grid of parameters, repeats and seeds",
		Long: "Run every run of a sweep file on -j workers, appending each finished run to OUT/results.jsonl, then\n" +
			"write results.csv, summary.md, plots/ and report.html. --shard K/N (or auto/N under a Slurm job array\n" +
			"or a Kubernetes Indexed Job) runs one deterministic slice; `proflab sweep merge` joins the slices.\n" +
			"Exit status: 0 when every run ended ok, 1 when some did not, 2 for a bad sweep file or command line,\n" +
			"130 when Ctrl-C or SIGTERM stopped it (the finished runs are kept: --resume goes on).",
		Args: cobra.ExactArgs(1),
		RunE: fl.run,
	}
	f := cmd.Flags()
	f.IntVarP(&fl.jobs, "jobs", "j", runtime.NumCPU(), "runs at once (workers, each with its own plugin processes)")
	f.StringVar(&fl.out, "out", "", "output folder (default out/NAME for NAME.toml)")
	f.BoolVar(&fl.resume, "resume", false, "skip the runs already in OUT/results.jsonl")
	f.BoolVar(&fl.strict, "strict-params", false, "fail the sweep (exit 2) when a parameter of the sweep was read by no run")
	f.BoolVar(&fl.wait, "wait", false, "wait for another proflab writing OUT to finish instead of refusing the folder")
	f.BoolVar(&fl.allowMixed, "allow-mixed", false, "go on when the runs already in OUT read other versions of their files, plugins or proflab (recorded in sweep.json)")
	f.BoolVar(&fl.retry, "retry-failed", false, "like --resume, and rerun the runs that did not end ok")
	f.BoolVar(&fl.dry, "dry-run", false, "list the runs (index, id, repeat, seed, parameters) and run nothing")
	f.StringVar(&fl.shardArg, "shard", "", "run slice K of N (K from 0), or auto/N: K from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX")
	f.BoolVar(&fl.runOutputs, "run-outputs", false, "also write each run's output folder (result.json, config, buckets, pprof profiles) to OUT/runs/ID")
	f.StringArrayVar(&fl.sets, "set", nil, "pin a parameter, key=value (a TOML literal), over [grid], [zip] and [set]; repeatable")
	cmd.AddCommand(newSweepMergeCmd())
	return cmd
}

// sweepFlags are the flags of proflab sweep.
type sweepFlags struct {
	jobs               int
	out, shardArg      string
	resume, retry, dry bool
	runOutputs, wait   bool
	allowMixed, strict bool
	sets               []string
}

// run is proflab sweep FILE.toml.
func (fl *sweepFlags) run(cmd *cobra.Command, args []string) error {
	f, err := sweep.ReadFile(args[0])
	if err != nil {
		return withCode(ExitUsage, err)
	}
	params, err := scenario.ParseSets(fl.sets)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	plan, err := sweep.Expand(f, params)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	shard := sweep.Whole
	stderr := cmd.ErrOrStderr()
	if fl.shardArg != "" {
		s, from, err := sweep.ParseShard(fl.shardArg, os.Getenv)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		if from != "" {
			fmt.Fprintf(stderr, "sweep: shard %s (index from %s)\n", s, from)
		}
		shard = s
	}
	if fl.dry {
		return dryRun(cmd.OutOrStdout(), plan, shard)
	}
	if fl.out == "" {
		fl.out = filepath.Join("out", strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0])))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := sweep.Execute(ctx, plan, sweep.Options{
		Out: fl.out, Jobs: fl.jobs, Shard: shard, Resume: fl.resume, RetryFailed: fl.retry,
		Progress: progressFor(stderr), RunOutputs: fl.runOutputs, Wait: fl.wait, AllowMixed: fl.allowMixed, StrictParams: fl.strict,
		Notes: noteTo(stderr),
	})
	if sum.Started {
		// a sweep refused before any run (its folder locked, or full
		// without --resume) has no runs to count: only its error is said
		fmt.Fprintln(cmd.OutOrStdout(), sum)
	}
	if len(sum.Unread) > 0 && !fl.strict {
		fmt.Fprintf(stderr, "warning: no run read %s from lab.params: a misspelt axis, or a parameter the scenario does not use? (every run ran without it; --strict-params makes this an error)\n", strings.Join(sum.Unread, ", "))
	}
	switch {
	case errors.Is(err, sweep.ErrInterrupted):
		return withCode(ExitInterrupted, fmt.Errorf("interrupted: %d finished runs are in %s; add --resume to go on", sum.Finished(), fl.out))
	case err != nil:
		return withCode(ExitUsage, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "results in %s (report.html, summary.md, results.csv)\n", fl.out)
	if sum.OK != sum.Runs {
		return silentExit(ExitFailed)
	}
	return nil
}

// noteTo prints the reports' notes (what they left out) on w.
func noteTo(w io.Writer) func(string) {
	return func(note string) { fmt.Fprintf(w, "note: %s\n", note) }
}

// dryRun lists the runs of the shard.
func dryRun(w io.Writer, plan *sweep.Plan, shard sweep.Shard) error {
	fmt.Fprintf(w, "%d runs (shard %s of a sweep of %d), hash %.12s\n", plan.ShardLen(shard), shard, plan.Len(), plan.Hash)
	for r := range plan.ShardRuns(shard) {
		keys := make([]string, 0, len(r.Params))
		for k := range r.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var ps []string
		for _, k := range keys {
			ps = append(ps, fmt.Sprintf("%s=%v", k, r.Params[k]))
		}
		fmt.Fprintf(w, "%d\t%s\trepeat %d\tseed %d\t%s\n", r.Index, r.ID, r.Repeat, r.Seed, strings.Join(ps, " "))
	}
	return nil
}

// progressFor draws a bar on a terminal and plain lines every 10 s
// elsewhere (logs, batch jobs).
func progressFor(w io.Writer) sweep.Progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return sweep.NewBar(w)
	}
	return sweep.NewLines(w, 10*time.Second)
}

func newSweepMergeCmd() *cobra.Command {
	var allowMixed bool
	cmd := &cobra.Command{
		Use:   "merge OUT DIR...",
		Short: "Join the output folders of a sweep's shards into OUT, with its reports",
		Long: "merge joins shard folders (from --shard K/N) into OUT exactly as the unsharded sweep writes it.\n" +
			"It refuses shards of another sweep, a shard given twice, a missing shard, an unfinished one, a run\n" +
			"twice, and shards whose runs read different versions of their files, plugins or proflab (sweep.json's\n" +
			"inputs) unless --allow-mixed.",
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sweep.Merge(args[0], args[1:], sweep.MergeOptions{AllowMixed: allowMixed, Notes: noteTo(cmd.ErrOrStderr())}); err != nil {
				return withCode(ExitUsage, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d shards into %s\n", len(args)-1, args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&allowMixed, "allow-mixed", false, "merge shards whose runs read different versions of their inputs, recording them in sweep.json")
	return cmd
}
