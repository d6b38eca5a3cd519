package scenario

import (
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
)

// Preflight starts every configured HAL on a fresh worker's plugin host
// and checks it (halhost.Preflight: the plugin is there, it starts, it
// accepts its settings on the default machine), before any run. On
// success s.Config becomes the configuration in force (the HALs' own
// settings filled in) and s.Plugins what each plugin is, and the warm
// host is returned as a HAL provider for one worker (Options.HALs), with
// the function that closes it; a command with a single run saves starting
// the plugins twice.
func (s *Setup) Preflight(opts halhost.Options) (lab.HALProvider, func(), error) {
	h, closeHost := lab.NewHostHALs(s.Config, opts)
	cfg, plugins, err := halhost.Preflight(h.Host, s.Config)
	if err != nil {
		closeHost()
		return nil, nil, err
	}
	s.Config, s.Plugins = cfg, plugins
	return h, closeHost, nil
}
