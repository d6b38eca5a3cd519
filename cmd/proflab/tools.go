package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/scenario"
	"github.com/proflab/proflab/core/sim"
)

// A tool command runs one of Windows' own profiling tools, re-created as
// a Lua program of the embedded library (scripts/tools/NAME.lua), on a
// machine built from the configuration: the driver below is the whole
// scenario. The tool's options are Windows' own (single dash: -s 5,
// -profint); proflab's flags are long (--config, --workload, …) and come
// anywhere before a `--`, after which everything is the tool's.

// toolDriver is the scenario a tool command runs: a machine from the
// configuration's defaults, the tool on it, and its status recorded for
// the command's exit code.
const toolDriver = `local lab = require "proflab"
local tool = require("tools." .. lab.params.tool)
local res = tool.run(lab.machine{}, lab.params.args, { workload = lab.params.workload })
if res.status ~= 0 then lab.record{ tool_status = res.status, tool_error = res.error } end
`

// toolFlags are a tool command's flags: a run's (the configuration, the
// seed, the budgets), the workload, and where to keep the run folder.
type toolFlags struct {
	flags    runFlags
	workload string
	out      string
	force    bool
}

func (f *toolFlags) register(cmd *cobra.Command, workload bool) {
	f.flags.registerTool(cmd)
	if workload {
		cmd.Flags().StringVar(&f.workload, "workload", "", "the workload to profile: a workload TOML file (examples/workloads/server.toml), as m:run takes")
	}
	cmd.Flags().StringVar(&f.out, "out", "", "keep the run folder in this new or empty folder: log.txt (the tool's log), result.json, config.toml; kernrate's also its workload and profiles (buckets.csv, accuracy.csv, pprof files); a tool that refuses its options writes nothing")
	cmd.Flags().BoolVar(&f.force, "force", false, "with --out: replace the contents of a folder that is not empty")
}

// splitToolArgs separates proflab's flags (long ones, before a `--`) from
// the tool's arguments, in their order. A long flag that takes a value
// may have it after "=" or as the next argument.
func splitToolArgs(fs *pflag.FlagSet, args []string) (ours, tool []string, help bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ours, append(tool, args[i+1:]...), help, nil
		case a == "--help" || a == "-h":
			help = true
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			fl := fs.Lookup(name)
			if fl == nil {
				return nil, nil, false, fmt.Errorf("%s; proflab's flags are %s; the tool's options take one dash (-s 5), and everything after -- is the tool's", unknownFlag(fs, name), flagNames(fs))
			}
			ours = append(ours, a)
			if !hasValue && fl.Value.Type() != "bool" {
				if i+1 == len(args) {
					return nil, nil, false, fmt.Errorf("flag %s needs a value", a)
				}
				i++
				ours = append(ours, args[i])
			}
		default:
			tool = append(tool, a)
		}
	}
	return ours, tool, help, nil
}

func flagNames(fs *pflag.FlagSet) string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, "--"+f.Name) })
	return strings.Join(names, ", ")
}

// newToolCmds are the tool commands: kernrate, wpr and tracelog.
func newToolCmds() []*cobra.Command {
	return []*cobra.Command{
		newToolCmd("kernrate", "Run kernrate, the Kernel Profiler, on the model: hits per module and function",
			"kernrate profiles the kernel's modules (and with -a, -n NAME or -p PID a process's) while the\n"+
				"workload runs for -s N seconds of simulated time, and prints kernrate's log: the processors'\n"+
				"Overall Summary, hits per module, and per function for each -z MODULE (bucket size -b N).\n"+
				"Options: -s N, -i [SOURCE] N (events per hit; Time 25000 by default; 0 turns a source off),\n"+
				"-b N, -z MODULE, -a, -n NAME, -p PID. Example:\n\n"+
				"  proflab kernrate --workload examples/workloads/server.toml -s 5 -a -z server.exe", true),
		newToolCmd("wpr", "Run wpr's profile-interval commands and CPU recording on the model (Windows 8.1 and later)",
			"wpr queries and sets the sampled-profile interval of a source through TraceQueryInformation and\n"+
				"TraceSetInformation: -profint [SOURCE], -setprofint N [SOURCE] (1221…10000000, 100 ns units),\n"+
				"-resetprofint [SOURCE], -pmcsources. SOURCE is a name from -pmcsources (Timer by default).\n"+
				"-start CPU -stop FILE.etl [-duration N] records the CPU profile (PROC_THREAD + LOADER + PROFILE,\n"+
				"stacks on Profile) while the workload runs N seconds of simulated time (10) and writes FILE.etl\n"+
				"and FILE.symbols. Examples:\n\n  proflab wpr -profint          # Current Profile Interval = 10000 [1.0000ms]\n"+
				"  proflab wpr --workload examples/workloads/server.toml -start CPU -stop cpu.etl", true),
		newToolCmd("tracelog", "Run tracelog on the model: the profile sources, and kernel logger recording",
			"tracelog -profilesources Help lists the profile sources the machine's HALs offer, with their\n"+
				"current, minimum and maximum intervals (Windows 8, 6.2, and later). tracelog -start -f FILE.etl\n"+
				"-eflag PROC_THREAD+LOADER+PROFILE [-stackwalk Profile] [-duration N] records the NT Kernel Logger\n"+
				"while the workload runs N seconds of simulated time (10) and writes FILE.etl and FILE.symbols.\n"+
				"Examples:\n\n  proflab tracelog -profilesources Help\n"+
				"  proflab tracelog --workload examples/workloads/server.toml -start -f k.etl -eflag PROC_THREAD+LOADER+PROFILE -stackwalk Profile", true),
	}
}

// newToolCmd is `proflab NAME`: the tool NAME of the embedded library.
func newToolCmd(name, short, long string, workload bool) *cobra.Command {
	var flags toolFlags
	cmd := &cobra.Command{
		Use:                   name + " [proflab flags] [--] TOOL OPTIONS...",
		Short:                 short,
		Long:                  long + toolsLong,
		DisableFlagParsing:    true,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			ours, toolArgs, help, err := splitToolArgs(cmd.Flags(), args)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			if help {
				return cmd.Help()
			}
			if err := cmd.Flags().Parse(ours); err != nil {
				return flagError(cmd, err)
			}
			return flags.run(cmd, name, toolArgs)
		},
	}
	flags.register(cmd, workload)
	return cmd
}

// toolsLong is the part of every tool command's help that they share.
const toolsLong = `

The tool is a Lua program of proflab's embedded library (scripts/tools/), a client of the scenario
API: every number it prints is an answer of the modelled kernel's services. It runs on a machine
built from the configuration (--config, --config-set machine.version=6.1 …) as a process with an
elevated administrator's privileges (SeSystemProfilePrivilege, SeProfileSingleProcessPrivilege,
high integrity). The tool's options take one dash, as on Windows; proflab's flags take two and may
come anywhere; after -- every argument is the tool's. docs/windows-tools.md explains every line.
The run has the budgets of proflab run: --timeout (wall clock) and --memory, 0 for none, by default
the configuration's [run] timeout and memory.

Exit status: 0 done; 1 a service refused the tool, or the run failed or exceeded a budget; 2 bad
options, a flag, the configuration or the workload, or a machine the tool does not run on; 3 a HAL
plugin failed. An error is one line, "proflab: TOOL: what went wrong" (a fault of the tool's own Lua
or of proflab adds its traceback).`

// run runs the tool with its arguments and reports its log and status.
func (f *toolFlags) run(cmd *cobra.Command, name string, toolArgs []string) error {
	ctx, stop := signalContext()
	defer stop()
	opt, closeHALs, err := f.options(cmd, name, toolArgs)
	if err != nil {
		return err
	}
	defer closeHALs()
	return runDriver(ctx, cmd, name, opt, f.out, f.force, nil)
}

// runDriver runs a tool's driver scenario (opt) and reports its log and
// status: the run folder in out (else the configuration's output.dir),
// the run's error or the tool's (tool_error, tool_status) as the exit
// status; after, when given, runs once the tool succeeded and its folder
// is written, with the run and its folder ("" without one).
func runDriver(ctx context.Context, cmd *cobra.Command, name string, opt scenario.Options, out string, force bool, after func(r scenario.Result, out string) error) error {
	var err error
	if out == "" && opt.Setup.Config != nil {
		out = opt.Setup.Config.Output.Dir
	}
	if out, err = checkRunOut(out, force); err != nil {
		return err
	}
	opt.Log = cmd.OutOrStdout()
	if errw := cmd.ErrOrStderr(); isTerminal(errw) {
		ctx = sim.WithProgress(ctx, progressEvery, (&progressLine{w: errw}).report)
	}
	r := scenario.Run(ctx, opt)
	defer r.Outputs.Close()
	toolCode, toolErr := toolOutcome(r)
	if toolCode == ExitFailed {
		// the tool failed on the machine: its folder says so
		r.Status = scenario.StatusFailed
	}
	// A tool that refused its options stopped before it ran anything:
	// it writes nothing, so that the corrected command can use --out.
	if out != "" && toolCode != ExitUsage {
		warnings, err := scenario.WriteResultWith(out, r, scenario.WriteOptions{Replace: force})
		if err != nil && !outputsOverBudget(cmd, &r, out, err) {
			return withCode(ExitUsage, fmt.Errorf("--out %s: %w", out, err))
		}
		for _, w := range warnings {
			fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
		}
	}
	if r.Error != nil {
		switch r.Error.Kind {
		case runerr.KindLua, runerr.KindBug:
			// a fault of the tool's program or of proflab: its traceback
			// or Go stack is what a report needs
			scenario.WriteDetails(cmd.ErrOrStderr(), r, "")
			return silentExit(exitCodeFor(r))
		}
		// A budget, a signal, a HAL plugin: one line, as the tool's own
		// errors, for a user who never saw the tool's Lua (result.json
		// under --out keeps the traceback).
		return withCode(exitCodeFor(r), fmt.Errorf("%s: %s", name, r.Error.Unlocated()))
	}
	if toolErr != nil {
		return withCode(toolCode, toolErr)
	}
	// a recording (wpr -stop FILE.etl, tracelog -f FILE.etl) asks for its
	// .etl to be written
	if path, ok := r.Records["etl_file"].(string); ok {
		if err := output.WriteETLFile(ctx, path, r.Outputs); err != nil {
			return withCode(ExitFailed, fmt.Errorf("%s: %w", name, err))
		}
	}
	if after != nil {
		return after(r, out)
	}
	return nil
}

// toolOutcome is the tool's own exit status and error, as its driver
// recorded them (tool_status, tool_error): 0 and nil when it succeeded,
// ExitUsage when it refused its options (before running anything),
// ExitFailed when it failed on the machine.
func toolOutcome(r scenario.Result) (int, error) {
	msg, ok := r.Records["tool_error"].(string)
	if !ok {
		return 0, nil
	}
	if s, ok := r.Records["tool_status"].(float64); ok && int(s) == ExitUsage {
		return ExitUsage, errors.New(msg)
	}
	return ExitFailed, errors.New(msg)
}

// options is the run of the driver: the run's options as every command
// builds them (runFlags.options), with the tool's name, arguments and
// workload as its parameters.
func (f *toolFlags) options(cmd *cobra.Command, name string, toolArgs []string) (scenario.Options, func(), error) {
	args := make([]any, len(toolArgs))
	for i, a := range toolArgs {
		args[i] = a
	}
	params := map[string]any{"tool": name, "args": args}
	if f.workload != "" {
		abs, err := filepath.Abs(f.workload)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			return scenario.Options{}, nil, withCode(ExitUsage, fmt.Errorf("--workload %s: %w", f.workload, err))
		}
		params["workload"] = abs
	}
	opt, hals, closeHALs, err := f.flags.options(cmd)
	if err != nil {
		return scenario.Options{}, nil, err
	}
	// The driver has no file: this name is what result.json and messages
	// show, in a folder no module is looked up in.
	opt.File, opt.Source = filepath.Join("<proflab>", name), []byte(toolDriver)
	opt.Params, opt.HALs = params, hals
	if f.workload != "" {
		// the folder of the file named on the command line may be read
		opt.WorkloadDirs = append(opt.WorkloadDirs, filepath.Dir(params["workload"].(string)))
	}
	return opt, closeHALs, nil
}
