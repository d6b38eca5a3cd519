package scenario

import (
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
	// and budget ([run] timeout), for commands whose flags were not given.
	Seed    uint64
	Timeout time.Duration
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
	}
	s.NewHALs = func() (lab.HALProvider, func(), error) {
		h, closeHost := lab.NewHostHALs(cfg, opts)
		return h, closeHost, nil
	}
	return s
}
