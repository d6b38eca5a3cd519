package luart

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/suggest"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// machineFields are the fields lab.machine{...} takes.
var machineFields = []string{"version", "arch", "cpus", "cpu_vendor", "pebs", "freq_mhz", "hal", "seed", "cache_errata_interval", "hal_settings"}

// labMachine is lab.machine{...}: a simulated computer, assembled by
// core/lab from the fields (their defaults from the configuration's
// [machine] table) on the runtime's HAL provider.
func (rt *Runtime) labMachine(L *lua.LState) int {
	const fn = "lab.machine"
	f := luavm.CheckFields(L, fn, L.Get(1), machineFields...)
	def := rt.machineDefaults()

	// the fields' types and plain ranges here; what they mean together
	// (the architecture's default and processors) is core/lab's Resolve
	var o lab.Overrides
	if f.Has("version") {
		if n, isNum := f.Get("version").(lua.LNumber); isNum {
			// 6.1 from --set version=6.1 or a TOML grid is a number, and
			// 10.0 is 10: say how to keep the text
			f.Errorf("version", "expected a string like \"6.1\", got the number %v; a version is text: quote it (--set 'version=\"6.1\"', version = [\"6.1\", \"10.0\"] in a sweep)", n)
		}
		v := f.String("version", "")
		o.Version = &v
	}
	if f.Has("arch") {
		v := f.Enum("arch", "", "x86", "x64")
		o.Arch = &v
	}
	if f.Has("cpus") {
		v := f.Int("cpus", 0, 1, kernel.X64.MaxCPUs())
		o.CPUs = &v
	}
	if f.Has("cpu_vendor") {
		v := f.Enum("cpu_vendor", "", nt.VendorIntel, nt.VendorAMD)
		o.Vendor = &v
	}
	if f.Has("pebs") {
		v := f.Bool("pebs", false)
		o.PEBS = &v
	}
	if f.Has("freq_mhz") {
		v := f.Int("freq_mhz", 0, 1, 1_000_000)
		o.FreqMHz = &v
	}
	if f.Has("seed") {
		v := f.Uint("seed", 0, 0, math.MaxUint64)
		o.Seed = &v
	}
	o.CacheErrataInterval = uint32(f.Uint("cache_errata_interval", 0, 1, math.MaxUint32))
	names := f.Strings("hal", def.HAL)
	provider := rt.halProvider()
	checkHALNames(f, names, provider.Names())

	o.HALs = names
	spec, err := lab.Resolve(def, o, rt.cfg.Seed)
	var fe *lab.FieldError
	if errors.As(err, &fe) {
		f.Errorf(fe.Field, "%s", fe.Msg)
	}
	spec.Context = rt.Context()
	spec.HALSettings = halSettings(f, names)
	l, err := lab.Assemble(provider, spec)
	var ce *halhost.ConfigureError
	if errors.As(err, &ce) && spec.HALSettings[ce.HAL] != nil {
		// the scenario's own settings were refused: its error, not a plugin's
		f.Errorf("hal_settings", "%s refused them: %v", ce.HAL, ce.Err)
	}
	if err != nil {
		if lab.IsHALFailure(err) {
			rt.raisePlugin(L, fmt.Errorf("%s: %w", fn, err))
		}
		L.RaiseError("%s: %v", fn, err)
	}
	rt.releases = append(rt.releases, l.Close)
	rt.labs = append(rt.labs, l)
	rt.watchHALs(l.HALs)
	if rt.cfg.Outputs != nil {
		rt.cfg.Outputs.AddMachine(l.Machine, l.Sim)
	}
	ud := L.NewUserData()
	ud.Value = &machine{km: l.Machine, sim: l.Sim, seed: spec.Seed, hals: names}
	ud.Metatable = L.GetTypeMetatable(machineTypeName)
	L.Push(ud)
	return 1
}

// checkHALNames checks the machine's HAL names against the configured
// ones: each is configured, and listed once.
func checkHALNames(f *luavm.Fields, names, configured []string) {
	for i, n := range names {
		if !slices.Contains(configured, n) {
			msg := fmt.Sprintf("no HAL named %q; the configured HALs are %s", n, strings.Join(configured, ", "))
			if s := suggest.Closest(n, configured); s != "" {
				msg = fmt.Sprintf("no HAL named %q (did you mean %q?); the configured HALs are %s", n, s, strings.Join(configured, ", "))
			}
			f.Errorf("hal", "%s", msg)
		}
		for _, m := range names[:i] {
			if m == n {
				f.Errorf("hal", "%q is listed twice", n)
			}
		}
	}
}

// halProvider is the configured provider, or else the shipped HALs run
// in-process (so that m:run behaves as it does through the plugins),
// made once per runtime.
func (rt *Runtime) halProvider() lab.HALProvider {
	if rt.cfg.HALs != nil {
		return rt.cfg.HALs
	}
	if rt.defaultHALs == nil {
		rt.defaultHALs = lab.ShippedInproc()
	}
	return rt.defaultHALs
}

// machineDefaults are the defaults of lab.machine{...}'s fields: the
// configured [machine] table, else the embedded default configuration's.
func (rt *Runtime) machineDefaults() config.Machine {
	if rt.cfg.Machine != nil {
		return *rt.cfg.Machine
	}
	if rt.defaultMachine == nil {
		m := config.DefaultMachine()
		rt.defaultMachine = &m
	}
	return *rt.defaultMachine
}

// halSettings reads lab.machine{ hal_settings = { NAME = { key = value,
// ... }, ... } }: per HAL the machine lists, settings merged key by key
// over the configuration's `[hal.NAME.settings]` for this machine only
// (what `--config-set hal.NAME.settings.key=value` does for every
// machine). Values are Lua booleans, strings, integral numbers (others
// are an error: settings are integers), arrays and tables of them. The
// HAL decodes them strictly, so an unknown key is the HAL's error.
func halSettings(f *luavm.Fields, names []string) map[string]map[string]any {
	lv := f.Get("hal_settings")
	if lv == lua.LNil {
		return nil
	}
	t, ok := lv.(*lua.LTable)
	if !ok {
		f.Errorf("hal_settings", "expected a table of HAL name → settings table, got %s", luavm.TypeName(lv))
	}
	out := map[string]map[string]any{}
	err := luavm.EachPair(t, func(k, v lua.LValue) error {
		name, isString := k.(lua.LString)
		if !isString {
			return fmt.Errorf("keys are HAL names, got a %s key", luavm.TypeName(k))
		}
		if !slices.Contains(names, string(name)) {
			return fmt.Errorf("%q is not one of this machine's HALs (%v)", string(name), names)
		}
		st, isTable := v.(*lua.LTable)
		if !isTable {
			return fmt.Errorf("%s: expected a settings table, got %s", name, luavm.TypeName(v))
		}
		m, err := settingsTable(st, string(name), 1)
		if err != nil {
			return err
		}
		out[string(name)] = m
		return nil
	})
	if err != nil {
		f.Errorf("hal_settings", "%s", err)
	}
	return out
}

// settingsTable converts a Lua settings table (string keys) to a map;
// depth is how deep it lies in the HAL's settings, at most
// luavm.MaxValueDepth (a table that contains itself went on until the
// memory budget ended the run).
func settingsTable(t *lua.LTable, path string, depth int) (map[string]any, error) {
	if depth > luavm.MaxValueDepth {
		return nil, fmt.Errorf("%s: settings nested more than %d deep (a table that contains itself?)", path, luavm.MaxValueDepth)
	}
	out := map[string]any{}
	err := luavm.EachPair(t, func(k, v lua.LValue) error {
		ks, ok := k.(lua.LString)
		if !ok {
			return fmt.Errorf("%s: setting names are strings, got a %s key", path, luavm.TypeName(k))
		}
		var err error
		out[string(ks)], err = settingValue(v, path+"."+string(ks), depth+1)
		return err
	})
	return out, err
}

// settingValue converts one Lua value of a settings table, depth deep.
func settingValue(v lua.LValue, path string, depth int) (any, error) {
	switch x := v.(type) {
	case lua.LBool:
		return bool(x), nil
	case lua.LString:
		return string(x), nil
	case lua.LNumber:
		f := float64(x)
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, fmt.Errorf("%s = %s: settings are integers up to 2^53", path, luavm.FormatNumber(f))
		}
		return int64(f), nil
	case *lua.LTable:
		if depth > luavm.MaxValueDepth {
			return nil, fmt.Errorf("%s: settings nested more than %d deep (a table that contains itself?)", path, luavm.MaxValueDepth)
		}
		if n := x.Len(); n > 0 {
			arr := make([]any, 0, n)
			for i := 1; i <= n; i++ {
				e, err := settingValue(x.RawGetInt(i), fmt.Sprintf("%s[%d]", path, i), depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, e)
			}
			return arr, nil
		}
		if k, _ := x.Next(lua.LNil); k == lua.LNil {
			return []any{}, nil // {}: an empty list (skid = {} means no skid)
		}
		return settingsTable(x, path, depth)
	}
	return nil, fmt.Errorf("%s: a %s cannot be a setting", path, luavm.TypeName(v))
}
