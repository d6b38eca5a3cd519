package sweep

import (
	"errors"
	"fmt"
	"strings"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/halplugins/halrpc"
)

// checked is a configuration of the plan as Check found it: in force
// (every HAL's settings filled in) and with the plugins that serve it.
type checked struct {
	cfg     *config.Config
	plugins []halhost.Plugin
}

// Check resolves and checks each distinct configuration of the plan
// before any run: the machine it describes (version, architecture) and
// its HALs, whose plugins must be found, start and accept their settings
// on that machine (halhost.Preflight). A bad one is an error naming the
// sweep file's [config] line and the grid values that make it, so a
// version the lab does not model or a HAL setting out of range stops the
// sweep at once instead of failing each of its runs. The configurations
// in force and their plugins then serve the runs (and their results
// record the plugins). The plugins are started once per distinct [hal]
// table and stopped before Check returns.
func (plan *Plan) Check() error {
	if plan.checked != nil {
		return nil
	}
	hosts := map[string]*lab.HostHALs{}
	var closes []func()
	defer func() {
		for _, c := range closes {
			c()
		}
	}()
	out := map[string]checked{}
	for _, key := range plan.configOrder {
		cfg := plan.Configs[key]
		if _, err := lab.Resolve(cfg.Machine, lab.Overrides{}, 0); err != nil {
			return plan.configError(key, cfg, err)
		}
		hk := halKey(cfg)
		h := hosts[hk]
		if h == nil {
			var closeHost func()
			h, closeHost = lab.NewHostHALs(cfg, halhost.Options{})
			hosts[hk], closes = h, append(closes, closeHost)
		}
		inForce, plugins, err := halhost.Preflight(h.Host, cfg)
		for try := 0; errors.Is(err, halrpc.ErrStartTimeout) && try < startRetries; try++ {
			// a plugin too slow to start on a busy machine: as a run
			// would, the check tries again before it says so
			inForce, plugins, err = halhost.Preflight(h.Host, cfg)
		}
		if err != nil {
			return plan.configError(key, cfg, err)
		}
		out[key] = checked{cfg: inForce, plugins: plugins}
	}
	plan.checked = out
	return nil
}

// configError is err of the configuration key, with where it comes from:
// the [config] lines and grid values, or the configuration file.
func (plan *Plan) configError(key string, cfg *config.Config, err error) error {
	msg := err.Error()
	if key == "" {
		return fmt.Errorf("%s: %s", plan.File.Path, msg)
	}
	var with []string
	for _, o := range strings.Split(key, "\n") {
		k, v, _ := strings.Cut(o, "=")
		name := plan.paramOf(k)
		with = append(with, fmt.Sprintf("%s = %s", name, v))
	}
	if i := strings.Index(msg, ": "); strings.HasPrefix(msg, "machine.") && i > 0 {
		if o := cfg.Origin(msg[:i]); o != "" {
			msg = o + ": " + msg
		}
	}
	return fmt.Errorf("%s (the run's configuration with %s, from [config])", msg, strings.Join(with, ", "))
}

// paramOf is the parameter [config] maps to the configuration key k.
func (plan *Plan) paramOf(k string) string {
	for _, name := range plan.config {
		if plan.File.Config[name] == k {
			return name
		}
	}
	return k
}
