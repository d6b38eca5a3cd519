package scenario

import (
	"log/slog"

	"github.com/proflab/proflab/core/halhost"
	luart "github.com/proflab/proflab/core/lua"
)

// Preflight starts every configured HAL on a fresh worker's plugin host
// and checks it (halhost.Preflight: the plugin is there, it starts, it
// accepts its settings on the default machine), before any run. On
// success s.Config becomes the configuration in force (the HALs' own
// settings filled in) and s.Plugins what each plugin is, and the warm
// host is returned as a HAL provider for one worker (Options.HALs), with
// the function that closes it; a command with a single run saves starting
// the plugins twice.
func (s *Setup) Preflight(opts halhost.Options) (luart.HALProvider, func(), error) {
	sw := &logSwitch{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(sw, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	}
	host := halhost.New(s.Config.HAL, opts)
	cfg, plugins, err := halhost.Preflight(host, s.Config)
	if err != nil {
		host.Close()
		return nil, nil, err
	}
	s.Config, s.Plugins = cfg, plugins
	return &hostHALs{HostHALs: luart.HostHALs{Host: host, HALNames: cfg.HALNames()}, log: sw}, host.Close, nil
}
