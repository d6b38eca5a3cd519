package scenario

import (
	"errors"
	"fmt"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
)

// Preflight resolves the configuration's machine (lab.Resolve: a version
// the lab does not model is an error naming the configuration's line),
// then starts every configured HAL on a fresh worker's plugin host
// and checks it (halhost.Preflight: the plugin is there, it starts, it
// accepts its settings on the default machine), before any run. On
// success s.Config becomes the configuration in force (the HALs' own
// settings filled in) and s.Plugins what each plugin is, and the warm
// host is returned as a HAL provider for one worker (Options.HALs), with
// the function that closes it; a command with a single run saves starting
// the plugins twice.
func (s *Setup) Preflight(opts halhost.Options) (lab.HALProvider, func(), error) {
	if _, err := lab.Resolve(s.Config.Machine, lab.Overrides{}, 0); err != nil {
		var fe *lab.FieldError
		if errors.As(err, &fe) {
			if o := s.Config.Origin("machine." + fe.Field); o != "" {
				err = fmt.Errorf("%s: %w", o, err)
			}
		}
		return nil, nil, configError{err}
	}
	h, closeHost := lab.NewHostHALs(s.Config, opts)
	cfg, plugins, err := halhost.Preflight(h.Host, s.Config)
	if err != nil {
		closeHost()
		return nil, nil, err
	}
	s.Config, s.Plugins = cfg, plugins
	return h, closeHost, nil
}

// configError is an error of the configuration itself (errors.Is it
// halhost.ErrConfig: exit status 2), not of a plugin.
type configError struct{ error }

func (e configError) Is(target error) bool { return target == halhost.ErrConfig }
func (e configError) Unwrap() error        { return e.error }
