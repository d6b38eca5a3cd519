package scenario

import (
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	luart "github.com/proflab/proflab/core/lua"
)

// Setup is what the configuration (--config, or the embedded default)
// gives every run.
type Setup struct {
	// ConfigFile is the configuration's path ("" for the default).
	ConfigFile string
	// Config is the loaded configuration, every default filled in (nil:
	// the embedded default), written to a run's output folder.
	Config *config.Config
	// Machine are the defaults of lab.machine{...} ([machine]).
	Machine luart.MachineDefaults
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
	// in-process (luart.ShippedInproc).
	NewHALs func() (luart.HALProvider, func(), error)
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
	pebs := cfg.Machine.PEBS
	s := Setup{
		ConfigFile: path,
		Config:     cfg,
		Machine: luart.MachineDefaults{
			Version: cfg.Machine.Version,
			Arch:    cfg.Machine.Arch,
			CPUs:    cfg.Machine.CPUs,
			Vendor:  cfg.Machine.CPUVendor,
			PEBS:    &pebs,
			FreqMHz: cfg.Machine.FreqMHz,
			HAL:     append([]string(nil), cfg.Machine.HAL...),
		},
		Seed:    uint64(cfg.Machine.Seed),
		Timeout: cfg.Run.Timeout.Duration,
	}
	hals := cfg.HAL
	names := cfg.HALNames()
	s.NewHALs = func() (luart.HALProvider, func(), error) {
		sw := &logSwitch{}
		o := opts
		if o.Logger == nil {
			o.Logger = slog.New(slog.NewTextHandler(sw, &slog.HandlerOptions{ReplaceAttr: dropTime}))
		}
		host := halhost.New(hals, o)
		return &hostHALs{HostHALs: luart.HostHALs{Host: host, HALNames: names}, log: sw}, host.Close, nil
	}
	return s
}

// dropTime removes the wall-clock time from plugin log lines.
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// logSwitch is the plugin host's log destination: the log of the run in
// progress (the host outlives runs), nothing between runs.
type logSwitch struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (s *logSwitch) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return len(p), nil
	}
	return s.w.Write(p)
}

// hostHALs is the HALProvider of a plugin host whose log goes to the run
// in progress.
type hostHALs struct {
	luart.HostHALs
	log *logSwitch
}

// SetLog sends the plugins' log lines to w (nil: nowhere) — the log of
// the run that uses the provider.
func (h *hostHALs) SetLog(w io.Writer) {
	h.log.mu.Lock()
	h.log.w = w
	h.log.mu.Unlock()
}
