package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/scenario"
)

// The flags of the commands that run or check a configuration, and the
// one way they become a run's options: configuration → preflight →
// options (runFlags.options), used by run, test and the tools, whose
// first two steps are config check (configFlags.setup).

// configFlags are the flags every command that reads the configuration
// takes: --config and --config-set.
type configFlags struct {
	file string
	sets []string
}

// add registers the flags on cmd. shorthand says whether --config has
// its -c (the tools' single dashes are theirs: kernrate has a -c).
func (f *configFlags) add(cmd *cobra.Command, shorthand bool) {
	short := ""
	if shorthand {
		short = "c"
	}
	cmd.Flags().StringVarP(&f.file, "config", short, "", "configuration file merged over the built-in default")
	cmd.Flags().StringArrayVar(&f.sets, "config-set", nil, "override a configuration key: --config-set machine.version=6.1 (repeatable)")
}

// load reads the configuration: the built-in default, --config's file
// over it, then each --config-set, validated. Every error is bad input
// (exit 2).
func (f *configFlags) load() (*config.Config, error) {
	c := config.Default()
	if f.file != "" {
		if err := c.MergeFile(f.file); err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("--config %s: %w", f.file, err))
		}
	}
	for _, s := range f.sets {
		if err := c.Set(s); err != nil {
			return nil, withCode(ExitUsage, err)
		}
	}
	if err := c.Validate(); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	return c, nil
}

// setup loads the configuration and checks it against its HALs
// (preflight): the Setup in force, the preflight's warm HAL provider and
// the function that closes it.
func (f *configFlags) setup() (scenario.Setup, lab.HALProvider, func(), error) {
	cfg, err := f.load()
	if err != nil {
		return scenario.Setup{}, nil, nil, err
	}
	setup := scenario.SetupFromConfig(f.file, cfg, halhost.Options{})
	hals, closeHALs, err := preflight(&setup)
	if err != nil {
		return scenario.Setup{}, nil, nil, err
	}
	return setup, hals, closeHALs, nil
}

// preflight checks the configured HALs against the HALs themselves
// (scenario.Setup.Preflight): setup then holds the configuration in force
// and the plugins, and the returned provider is the warm plugin host of
// one worker, closed by the returned function. A setting a HAL rejects or
// a plugin that is not there is bad input (exit 2); a plugin that cannot
// be started or answer is a plugin failure (exit 3).
func preflight(setup *scenario.Setup) (lab.HALProvider, func(), error) {
	prov, closeFn, err := setup.Preflight(halhost.Options{})
	if err != nil {
		code := ExitPlugin
		if errors.Is(err, halhost.ErrConfig) {
			code = ExitUsage
		}
		return nil, nil, withCode(code, fmt.Errorf("the configuration's HALs:\n%w", err))
	}
	return prov, closeFn, nil
}

// runFlags are the flags of every command that runs a scenario (run,
// test, and the tools, whose scenario drives the tool): the
// configuration, the seed, the budgets and, but for the tools, --set.
type runFlags struct {
	config       configFlags
	seed         seedValue
	timeout      budget
	memory       byteSize
	sets         []string
	workloadDirs []string
}

// register adds the flags to run or test.
func (f *runFlags) register(cmd *cobra.Command) { f.add(cmd, false) }

// registerTool adds the flags to a tool command, which takes no --set
// (its arguments are its parameters) and no -c (kernrate has a -c).
func (f *runFlags) registerTool(cmd *cobra.Command) { f.add(cmd, true) }

func (f *runFlags) add(cmd *cobra.Command, tool bool) {
	f.config.add(cmd, !tool)
	fs := cmd.Flags()
	def := config.Default().Run
	if !tool {
		fs.StringArrayVar(&f.sets, "set", nil, "a parameter for lab.params, key=value: a TOML literal (8, 0.5, true, \"text\", [1, 2]) or a bare word (apic, 10.0.19041) as a string; repeatable")
	}
	fs.Var(&f.seed, "seed", "the run's seed, 0…18446744073709551615 (math.random, the machines' HALs and simulator); default: the configuration's machine.seed")
	fs.Var(&f.timeout, "timeout", fmt.Sprintf("wall-clock budget of each run, like 30s or 2m (0: none); default: the configuration's run.timeout, %s", def.Timeout))
	fs.Var(&f.memory, "memory", fmt.Sprintf("memory budget of each run, like 1GiB or 512MiB (0: none; runs side by side share their budgets' sum); default: the configuration's run.memory, %s", def.Memory))
	fs.StringArrayVar(&f.workloadDirs, "workload-dir", nil, "a folder, besides the scenario's own and the configuration's run.workload_dirs, whose workload files scenarios may read (m:run{ workload = PATH }); repeatable")
}

// options builds the run options shared by every scenario of a command:
// --set read (before any plugin starts), the configuration's setup
// checked against its HALs, and the flags given over its seed and budgets
// (scenario.Setup.Options, where 0 becomes "no budget"). It returns the
// preflight's warm HAL provider, for a command that runs one scenario,
// and the function that closes it.
func (f *runFlags) options(cmd *cobra.Command) (scenario.Options, lab.HALProvider, func(), error) {
	params, err := scenario.ParseSets(f.sets)
	if err != nil {
		return scenario.Options{}, nil, nil, withCode(ExitUsage, err)
	}
	setup, hals, closeHALs, err := f.config.setup()
	if err != nil {
		return scenario.Options{}, nil, nil, err
	}
	var over scenario.Overrides
	given := cmd.Flags().Changed
	if given("seed") {
		seed := uint64(f.seed)
		over.Seed = &seed
	}
	if given("timeout") {
		timeout := time.Duration(f.timeout)
		over.Timeout = &timeout
	}
	if given("memory") {
		memory := int64(f.memory)
		over.Memory = &memory
	}
	for _, d := range f.workloadDirs {
		abs, err := folder(d)
		if err != nil {
			closeHALs()
			return scenario.Options{}, nil, nil, withCode(ExitUsage, fmt.Errorf("--workload-dir %s: %w", d, err))
		}
		over.WorkloadDirs = append(over.WorkloadDirs, abs)
	}
	for _, d := range setup.WorkloadDirs {
		if _, err := folder(d); err != nil {
			closeHALs()
			return scenario.Options{}, nil, nil, withCode(ExitUsage, fmt.Errorf("the configuration's run.workload_dirs: %s: %w", d, err))
		}
	}
	opt := setup.Options(over)
	opt.Params = params
	return opt, hals, closeHALs, nil
}

// folder is the absolute path of dir, which must be a folder.
func folder(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", errors.New("not a folder")
	}
	return abs, nil
}

// seedValue is --seed: an unsigned 64-bit integer, with an error that says
// so (flagError names the flag and the value).
type seedValue uint64

func (s *seedValue) String() string { return strconv.FormatUint(uint64(*s), 10) }

func (s *seedValue) Set(v string) error {
	n, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		return errors.New("not a seed: give a whole number from 0 to 18446744073709551615 (decimal or 0x hex)")
	}
	*s = seedValue(n)
	return nil
}

func (s *seedValue) Type() string { return "uint64" }

// budget is --timeout: a duration as Go writes them (30s, 2m, 1h30m), 0
// for none; a negative one is refused.
type budget time.Duration

func (b *budget) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration: write it like 30s, 2m or 1h30m (0: none)")
	}
	if d < 0 {
		return errors.New("a budget cannot be negative (0 means none)")
	}
	*b = budget(d)
	return nil
}

func (b *budget) String() string {
	if *b == 0 {
		return "0"
	}
	return time.Duration(*b).String()
}

func (b *budget) Type() string { return "duration" }

// byteSize is a flag holding a size in bytes, written as the configuration
// writes them: 1GiB, 512MiB, 2GB, 1073741824; 0 or none for no limit.
type byteSize config.ByteSize

func (b *byteSize) Set(s string) error {
	v, err := config.ParseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(v)
	return nil
}

func (b *byteSize) String() string { return config.ByteSize(*b).String() }

func (b *byteSize) Type() string { return "size" }
