package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/compare"
	"github.com/proflab/proflab/core/scenario"
)

// profileDriver is the scenario `proflab profile` runs: the embedded
// library's tools.profile (scripts/tools/profile.lua) with the command's
// options as lab.params, its status recorded for the exit code as a
// tool's.
const profileDriver = `local lab = require "proflab"
local res = require("tools.profile").run(lab.params)
if res.status ~= 0 then lab.record{ tool_status = res.status, tool_error = res.error } end
`

// profileFlags are `proflab profile`'s flags: a tool's (the
// configuration, seed, budgets, --out) and the machine and sampling.
type profileFlags struct {
	tool            toolFlags
	version, arch   string
	source          string
	interval        uint32
	duration        time.Duration
	pebs            bool
	summaryRowCount int
}

func newProfileCmd() *cobra.Command {
	var f profileFlags
	cmd := &cobra.Command{
		Use:   "profile SOURCE --out DIR",
		Short: "How would Windows see my program? Run a profile you brought on Windows' profiler, and compare",
		Long: "Import SOURCE (a profile of your program in any format `proflab workload import` reads), run it on\n" +
			"the chosen Windows with the source's own processes and threads, and profile the program's images\n" +
			"(the images holding the source's samples, the most first) through the kernel's profile objects\n" +
			"and the NT Kernel Logger. The run folder (--out) holds the comparison with the source\n" +
			"(comparison.txt, comparison.csv), the lab's profiles (pprof), the kernel logger's trace\n" +
			"(Perfetto) and every other output of a run; the terminal gets the program's hottest functions as\n" +
			"the source had them and as Windows saw them, and the verdict in words.\n" +
			"docs/workload-import.md (\"How would Windows see my program?\") explains every line. Example:\n\n" +
			"  proflab profile perf.txt --version 6.1 --source Timer --out out/win7\n\n" +
			"Exit status: 0 done (whatever the verdict: `proflab compare SOURCE DIR` exits 1 on a difference);\n" +
			"1 a service refused the profiler, or the run failed or exceeded a budget; 2 bad input (flags,\n" +
			"the source, the configuration); 3 a HAL plugin failed. A refused run writes nothing into --out.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return withCode(ExitUsage, fmt.Errorf("profile takes one source profile, got %d arguments: proflab profile SOURCE --out DIR", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, args[0])
		},
	}
	f.tool.flags.registerTool(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.tool.out, "out", "", "the run folder, new or empty (required, unless the configuration's output.dir names one)")
	fl.BoolVar(&f.tool.force, "force", false, "with --out: replace the contents of a folder that is not empty")
	fl.StringVar(&f.version, "version", "", "the Windows version the program runs on, as lab.machine takes it (6.1, 10.0, 10.0.19041; default: the configuration's machine.version)")
	fl.StringVar(&f.arch, "arch", "", "x64 or x86 (default: the configuration's machine.arch)")
	fl.StringVar(&f.source, "source", "", "the profile source: Timer, or a counter such as TotalIssues, CacheMisses, BranchMispredictions (default: Timer; TotalIssues with --pebs)")
	fl.Uint32Var(&f.interval, "interval", 0, "the source's interval: 100 ns units for Timer, events for a counter (default: the HAL's, Windows' own default)")
	fl.DurationVar(&f.duration, "duration", 10*time.Second, "how long the program runs, in simulated time (at most 1h)")
	fl.BoolVar(&f.pebs, "pebs", false, "sample the counter precisely with PEBS (Windows 8, 6.2, and later)")
	fl.IntVar(&f.summaryRowCount, "rows", compare.SummaryRows, "the program's hottest functions to list (0: all); comparison.txt has every one")
	return cmd
}

// run runs the profiler and prints the summary.
func (f *profileFlags) run(cmd *cobra.Command, source string) error {
	ctx, stop := signalContext()
	defer stop()
	params, err := f.params(cmd, source)
	if err != nil {
		return err
	}
	opt, hals, closeHALs, err := f.tool.flags.options(cmd)
	if err != nil {
		return err
	}
	defer closeHALs()
	out := f.tool.out
	if out == "" && opt.Setup.Config != nil {
		out = opt.Setup.Config.Output.Dir
	}
	if out == "" {
		return withCode(ExitUsage, errors.New("give --out DIR: the run folder is where the comparison with the source, the profiles and the trace go"))
	}
	// The driver has no file: this name is what result.json and messages
	// show, in a folder no module is looked up in.
	opt.File, opt.Source = filepath.Join("<proflab>", "profile"), []byte(profileDriver)
	opt.Params, opt.HALs = params, hals
	// the folder of the file named on the command line may be read
	opt.WorkloadDirs = append(opt.WorkloadDirs, filepath.Dir(params["workload"].(string)))
	return runDriver(ctx, cmd, "profile", opt, out, f.tool.force, func(r scenario.Result, out string) error {
		cs, err := compare.OfRun(out, r.Imports)
		if err != nil {
			return withCode(ExitFailed, fmt.Errorf("profile: no comparison with the source: %w", err))
		}
		w := cmd.OutOrStdout()
		fmt.Fprintln(w)
		if err := compare.WriteSummary(w, cs, f.summaryRowCount); err != nil {
			return err
		}
		if err := compare.WriteUncompared(w, out, cs); err != nil {
			return err
		}
		fmt.Fprintf(w, "The comparison in full, per image, module and function: %s\n", filepath.Join(out, compare.TextFile))
		return nil
	})
}

// params are the driver's lab.params: the source's absolute path and
// the flags given.
func (f *profileFlags) params(cmd *cobra.Command, source string) (map[string]any, error) {
	abs, err := filepath.Abs(source)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, withCode(ExitUsage, fmt.Errorf("source profile %s does not exist: check the path", source))
		}
		return nil, withCode(ExitUsage, fmt.Errorf("source profile %s: %w", source, err))
	}
	if f.summaryRowCount < 0 {
		return nil, withCode(ExitUsage, fmt.Errorf("--rows %d: give a number of functions, or 0 for all", f.summaryRowCount))
	}
	if f.duration <= 0 || f.duration > time.Hour {
		return nil, withCode(ExitUsage, fmt.Errorf("--duration %s: give a simulated time above 0 and at most 1h", f.duration))
	}
	if f.duration%time.Microsecond != 0 {
		return nil, withCode(ExitUsage, fmt.Errorf("--duration %s: the simulated time is in whole microseconds", f.duration))
	}
	p := map[string]any{"workload": abs, "duration_us": f.duration.Microseconds()}
	given := cmd.Flags().Changed
	for _, s := range []struct {
		flag, value string
	}{{"version", f.version}, {"arch", f.arch}, {"source", f.source}} {
		if given(s.flag) {
			p[s.flag] = s.value
		}
	}
	if given("interval") {
		if f.interval == 0 {
			return nil, withCode(ExitUsage, errors.New("--interval 0: give the interval to sample at, or leave --interval out for the HAL's default"))
		}
		p["interval"] = int64(f.interval)
	}
	if f.pebs {
		p["pebs"] = true
	}
	return p, nil
}
