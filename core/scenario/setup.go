package scenario

import (
	"path/filepath"
	"time"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
)

// Setup is what the configuration (--config, or the embedded default)
// gives every run.
type Setup struct {
	// ConfigFile is the configuration's path ("" for the default).
	ConfigFile string
	// Config is the loaded configuration, every default filled in (nil:
	// the embedded default), written to a run's output folder.
	Config *config.Config
	// Machine are the defaults of lab.machine{...}: the configuration's
	// [machine] table (nil: the embedded default configuration's).
	Machine *config.Machine
	// Plugins are the configured HALs' plugins as Preflight found them
	// (nil when the configuration was not preflighted), for result.json.
	Plugins []halhost.Plugin
	// Seed and Timeout are the configuration's run seed ([machine] seed)
	// and wall-clock budget ([run] timeout; 0: none), for commands whose
	// flags were not given.
	Seed    uint64
	Timeout time.Duration
	// Memory is the configuration's memory budget in bytes ([run]
	// memory; 0: none).
	Memory int64
	// WorkloadDirs are the configuration's [run] workload_dirs, absolute
	// (a relative one is taken from the configuration file's folder).
	WorkloadDirs []string
	// NewHALs makes the HAL provider of one worker (for the configured
	// HALs, a plugin host whose processes serve every run of the worker)
	// and the function that closes it. nil: the shipped HALs' logic
	// in-process (lab.ShippedInproc).
	NewHALs func() (lab.HALProvider, func(), error)
}

// LoadSetup reads the configuration at path ("" for the embedded default)
// and returns the runs' Setup: machine defaults from [machine], the HALs
// of [hal.NAME] through a plugin host (found along search; nil: the
// default search), the seed and the budget.
func LoadSetup(path string, opts halhost.Options) (Setup, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return Setup{}, err
	}
	return SetupFromConfig(path, cfg, opts), nil
}

// SetupFromConfig is LoadSetup for a configuration already loaded.
func SetupFromConfig(path string, cfg *config.Config, opts halhost.Options) Setup {
	m := cfg.Machine
	m.HAL = append([]string(nil), m.HAL...)
	s := Setup{
		ConfigFile: path,
		Config:     cfg,
		Machine:    &m,
		Seed:       uint64(cfg.Machine.Seed),
		Timeout:    cfg.Run.Timeout.Duration,
		Memory:     int64(cfg.Run.Memory),
	}
	for _, d := range cfg.Run.WorkloadDirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(filepath.Dir(path), d)
		}
		if abs, err := filepath.Abs(d); err == nil {
			s.WorkloadDirs = append(s.WorkloadDirs, abs)
		}
	}
	s.NewHALs = func() (lab.HALProvider, func(), error) {
		h, closeHost := lab.NewHostHALs(cfg, opts)
		return h, closeHost, nil
	}
	return s
}

// Overrides are what a command line (or a sweep file) sets over the
// configuration's run settings. A nil field keeps the configuration's.
type Overrides struct {
	// Seed replaces [machine] seed.
	Seed *uint64
	// Timeout and Memory replace [run] timeout and memory (bytes); as
	// there, 0 means no budget.
	Timeout *time.Duration
	Memory  *int64
	// WorkloadDirs are folders scenarios may read workload files from
	// besides the configuration's (absolute).
	WorkloadDirs []string
}

// Options returns the options of a run under s: the configuration's seed
// and budgets with o's over them. This is the one place where a budget of
// 0 as people write it (the configuration's [run] table, --timeout 0,
// --memory 0) becomes "no budget": Options holds it as a negative value,
// its own 0 meaning the built-in default. The caller adds what to run
// (File, Source, Params) and how (Log, HALs).
func (s Setup) Options(o Overrides) Options {
	opt := Options{Seed: s.Seed, Timeout: s.Timeout, Memory: s.Memory, Setup: s}
	opt.WorkloadDirs = append(append([]string(nil), s.WorkloadDirs...), o.WorkloadDirs...)
	if o.Seed != nil {
		opt.Seed = *o.Seed
	}
	if o.Timeout != nil {
		opt.Timeout = *o.Timeout
	}
	if o.Memory != nil {
		opt.Memory = *o.Memory
	}
	opt.Timeout = noneIfZero(opt.Timeout)
	opt.Memory = noneIfZero(opt.Memory)
	return opt
}

// noneIfZero is a budget as Options holds it: a budget of 0 (or less),
// which people write for "none", is negative.
func noneIfZero[T time.Duration | int64](budget T) T {
	if budget <= 0 {
		return -1
	}
	return budget
}
