package halhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"sync"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/halplugins/halrpc"
)

// Plugin is what a run records of one configured HAL: where its code came
// from and what it speaks (result.json's "plugins"). For a HAL the run's
// machines opened, Path and SHA256 are those of the executable that
// served them, hashed when its process was started from it
// (MachineHAL.Plugin); for the others, as Preflight found them.
type Plugin struct {
	// HAL is the configuration's name for it ([hal.NAME]).
	HAL string `json:"hal"`
	// Transport is "plugin" or "inproc".
	Transport string `json:"transport"`
	// Path is the plugin executable's absolute path, the one executed
	// (empty in-process).
	Path string `json:"path,omitempty"`
	// SHA256 is the sha256 in hex of the bytes the plugin process was
	// started from (halrpc.Client.SHA256; empty in-process).
	SHA256 string `json:"sha256,omitempty"`
	// Protocol is the HAL plugin protocol version spoken (0 in-process).
	Protocol int `json:"protocol,omitempty"`
	// Name and Version are what the HAL says of itself.
	Name    string `json:"name"`
	Version string `json:"version"`
	// Served says a run's machine opened the HAL, so the executable is
	// the one that served the run (not written: a run's result.json lists
	// every configured HAL, the others as the command found them).
	Served bool `json:"-"`
}

// ErrConfig marks a Preflight error that is the configuration's fault (a
// plugin that is not there, a setting the HAL rejects), not the plugin's.
var ErrConfig = errors.New("configuration error")

// configError is a Preflight error of the configuration.
type configError struct{ msg string }

func (e *configError) Error() string        { return e.msg }
func (e *configError) Is(target error) bool { return target == ErrConfig }

func configErrorf(format string, args ...any) error {
	return &configError{msg: fmt.Sprintf(format, args...)}
}

// Preflight checks every configured HAL before anything runs: it finds
// its plugin, starts it, and configures an instance on the
// configuration's default machine with its settings, so that a plugin
// that does not exist and a setting the HAL rejects (an unknown key, a
// wrong type, a bad value) are reported at once, each naming the
// configuration file, line and key. On success it returns the
// configuration as it will be in force — every HAL's transport and timeout
// filled in, and its settings table holding the HAL's own defaults with
// the configured values over them — and what each plugin is.
func Preflight(h *Host, cfg *config.Config) (*config.Config, []Plugin, error) {
	names := cfg.HALNames()
	plugins := make([]Plugin, len(names))
	settings := make([]map[string]any, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plugins[i], settings[i], errs[i] = preflightOne(h, cfg, n)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	out := cfg.Clone()
	for i, n := range names {
		spec := out.HAL[n]
		if spec.Transport == "" {
			spec.Transport = config.TransportPlugin
		}
		if spec.Timeout.Duration == 0 {
			spec.Timeout.Duration = halrpc.DefaultTimeout
		}
		spec.Settings = settings[i]
		out.HAL[n] = spec
	}
	return out, plugins, nil
}

// settingRe finds the setting an SDK error names (`unknown setting "x"`,
// `setting "x": got a string, want int`)
// and an out-of-range value (`setting counters = 99, want 1…8`).
var settingRe = regexp.MustCompile(`setting (?:"([^"]+)"|([A-Za-z_][A-Za-z0-9_.]*) = )`)

func preflightOne(h *Host, cfg *config.Config, name string) (Plugin, map[string]any, error) {
	spec := cfg.HAL[name]
	p := Plugin{HAL: name, Transport: spec.Transport}
	if p.Transport == "" {
		p.Transport = config.TransportPlugin
	}
	where := func(key string) string {
		if o := cfg.Origin(key); o != "" {
			return o + ": " + key
		}
		if o := cfg.Origin("hal." + name + ".settings"); o != "" && strings.Contains(key, ".settings.") {
			return o + ": " + key
		}
		if o := cfg.Origin("hal." + name); o != "" {
			return o + ": " + key
		}
		return key
	}
	if p.Transport == config.TransportPlugin {
		path, err := h.search.Find(spec.Plugin) // absolute, as the host will execute it
		if err != nil {
			return p, nil, configErrorf("%s: %v", where("hal."+name+".plugin"), err)
		}
		warnIfWritable(path, h.log)
		p.Path, p.Protocol = path, halrpc.ProtocolVersion
	}
	mh, err := h.Open(name, MachineOf(cfg.Machine), Discard{})
	if err != nil {
		msg := err.Error()
		if errors.Is(err, halrpc.ErrExited) || errors.Is(err, halrpc.ErrTimeout) {
			return p, nil, fmt.Errorf("%s: %w", where("hal."+name+".plugin"), err)
		}
		if m := settingRe.FindStringSubmatch(msg); m != nil {
			// the SDK's message, without the host's "hal "x": configure:" prefixes
			if i := strings.LastIndex(msg, "configure: "); i >= 0 {
				msg = msg[i+len("configure: "):]
			}
			return p, nil, configErrorf("%s: %s (the HAL rejects it; `proflab hal list` shows its settings)", where("hal."+name+".settings."+m[1]+m[2]), msg)
		}
		if i := strings.Index(msg, "configure: "); i >= 0 {
			// one "configure:" for the host's, the SDK's and the plugin's
			// layers alike
			head, rest := msg[:i], msg[i:]
			for strings.HasPrefix(rest, "configure: configure: ") {
				rest = strings.TrimPrefix(rest, "configure: ")
			}
			return p, nil, configErrorf("%s: %s", where("hal."+name+".settings"), head+rest)
		}
		if p.Transport == config.TransportInproc {
			return p, nil, configErrorf("%s: %s", where("hal."+name+".plugin"), msg)
		}
		return p, nil, fmt.Errorf("%s: %w", where("hal."+name+".plugin"), err)
	}
	defer mh.Close()
	// the executable's path and sha256 as the started process has them:
	// the bytes it runs, hashed when it was started from them
	p = mh.Plugin()
	d := mh.Description()
	eff := map[string]any{}
	if d.Settings != "" {
		if err := json.Unmarshal([]byte(d.Settings), &eff); err != nil {
			return p, nil, fmt.Errorf("hal %q: its default settings are not a JSON object: %v", name, err)
		}
	}
	maps.Copy(eff, spec.Settings)
	return p, tomlNumbers(eff).(map[string]any), nil
}

// tomlNumbers turns JSON's float64 integers into int64, as TOML writes
// them.
func tomlNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = tomlNumbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = tomlNumbers(e)
		}
		return x
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	}
	return v
}
