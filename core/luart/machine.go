package luart

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/suggest"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// machineTypeName is the registry key of the machine metatable.
const machineTypeName = "proflab.machine"

// machineFields are the fields lab.machine{...} takes.
var machineFields = []string{"version", "arch", "cpus", "cpu_vendor", "pebs", "freq_mhz", "hal", "seed", "cache_errata_interval", "hal_settings"}

// machine is the Go side of a machine userdata.
type machine struct {
	km   *kernel.Machine
	sim  *sim.Sim // the simulated processors that m:run drives
	seed uint64
	hals []string

	mapped  uint64            // bytes the bindings' allocations hold (memory.go)
	regions map[region]uint64 // their sizes by owner and address
}

// labMachine is lab.machine{...}: a simulated computer, assembled by
// core/lab from the fields (their defaults from the configuration's
// [machine] table) on the runtime's HAL provider.
func (rt *Runtime) labMachine(L *lua.LState) int {
	const fn = "lab.machine"
	f := CheckFields(L, fn, L.Get(1), machineFields...)
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
	spec.Context = rt.ctx
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
func checkHALNames(f *Fields, names, configured []string) {
	for i, n := range names {
		if !contains(configured, n) {
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
		m := config.Default().Machine
		rt.defaultMachine = &m
	}
	return *rt.defaultMachine
}

// raisePlugin raises err as a Lua error and marks the run as failed by a
// HAL plugin (exit status 3), even if the script catches it.
func (rt *Runtime) raisePlugin(L *lua.LState, err error) {
	if rt.pluginFailure == nil {
		rt.pluginFailure = &runerr.Error{Kind: runerr.KindPlugin, Message: L.Where(1) + " " + err.Error()}
	}
	L.RaiseError("%s", err.Error())
}

// checkMachine returns the machine of a method call (self).
func checkMachine(L *lua.LState, fn string) *machine {
	ud, ok := L.Get(1).(*lua.LUserData)
	if ok {
		if m, ok := ud.Value.(*machine); ok {
			return m
		}
	}
	L.RaiseError("%s: call it as a method, m:%s(...), on a machine from lab.machine{...} (got %s)",
		fn, strings.TrimPrefix(fn, "m:"), typeName(L.Get(1)))
	return nil
}

// mustRun raises a Lua error naming the stop when the machine has stopped
// (a bug check or a HAL failure): calls that would run it are refused.
func (rt *Runtime) mustRun(L *lua.LState, m *machine, fn string) {
	if err := m.km.Err(); err != nil {
		L.RaiseError("%s: the machine has stopped: %v; only inspection (bugcheck, hal_log, hal_sources, cpu_count, events, memory reads) still works", fn, err)
	}
}

// callError turns an error of a kernel call into the binding's answer:
// a bug check this call caused is returned to Lua as (nil, bugcheck) by
// the caller; a HAL failure is a plugin error; anything else a Lua error.
// It returns the bug check when there is one to return.
func (rt *Runtime) callError(L *lua.LState, m *machine, fn string, err error) *kernel.BugCheck {
	var bc *kernel.BugCheck
	if errors.As(err, &bc) && !errors.Is(err, kernel.ErrHalted) {
		return bc
	}
	if errors.Is(err, kernel.ErrHalted) {
		rt.mustRun(L, m, fn)
	}
	var he *kernel.HALError
	if errors.As(err, &he) {
		rt.raisePlugin(L, fmt.Errorf("%s: %w", fn, err))
	}
	L.RaiseError("%s: %v", fn, err)
	return nil
}

// bugCheckTable is { code = n, name = "…", params = {p1, p2, p3, p4} }.
func bugCheckTable(L *lua.LState, bc *kernel.BugCheck) *lua.LTable {
	t := L.CreateTable(0, 3)
	t.RawSetString("code", lua.LNumber(bc.Code))
	t.RawSetString("name", lua.LString(bugCheckName(bc.Code)))
	params := L.CreateTable(4, 0)
	for _, p := range bc.Params {
		params.Append(ResultValue(L, p))
	}
	t.RawSetString("params", params)
	return t
}

// registerMachine installs the machine metatable.
func (rt *Runtime) registerMachine(L *lua.LState) {
	mt := L.NewTypeMetatable(machineTypeName)
	methods := map[string]lua.LGFunction{
		"process":             rt.machineProcess,
		"kernel":              rt.machineKernel,
		"interrupt":           rt.machineInterrupt,
		"bugcheck":            rt.machineBugCheck,
		"cpu_count":           rt.machineCPUCount,
		"hal_sources":         rt.machineHALSources,
		"hal_log":             rt.machineHALLog,
		"inject":              rt.machineInject,
		"on_hal_call":         rt.machineOnHALCall,
		"run":                 rt.machineRun,
		"images":              rt.machineImages,
		"start_kernel_logger": rt.machineStartKernelLogger,
		"version":             rt.machineVersion,
		"arch":                rt.machineArch,
	}
	idx := L.NewTable()
	for name, f := range methods {
		idx.RawSetString(name, rt.fn("m:"+name, f))
	}
	rt.machIdx = idx
	mt.RawSetString("__index", rt.fn("machine index", func(L *lua.LState) int {
		key := L.Get(2)
		if v := idx.RawGet(key); v != lua.LNil {
			L.Push(v)
			return 1
		}
		L.RaiseError("a machine has no method %s; its methods are %s", lua.LVAsString(key), strings.Join(sortedKeys(methods), ", "))
		return 0
	}))
	mt.RawSetString("__tostring", rt.fn("machine tostring", func(L *lua.LState) int {
		m := checkMachine(L, "tostring")
		L.Push(lua.LString(fmt.Sprintf("machine (Windows %s %s, %d processors)", m.km.Version(), m.km.Arch(), m.km.CPUCount())))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(machineTypeName))
}

// machineCPUCount is m:cpu_count().
func (rt *Runtime) machineCPUCount(L *lua.LState) int {
	L.Push(lua.LNumber(checkMachine(L, "m:cpu_count").km.CPUCount()))
	return 1
}

// machineVersion is m:version(): the modelled version ("10.0.19041").
func (rt *Runtime) machineVersion(L *lua.LState) int {
	L.Push(lua.LString(checkMachine(L, "m:version").km.Version().String()))
	return 1
}

// machineArch is m:arch(): "x86" or "x64".
func (rt *Runtime) machineArch(L *lua.LState) int {
	L.Push(lua.LString(checkMachine(L, "m:arch").km.Arch().String()))
	return 1
}

// machineBugCheck is m:bugcheck(): nil, or the bug check's table.
func (rt *Runtime) machineBugCheck(L *lua.LState) int {
	m := checkMachine(L, "m:bugcheck")
	if bc := m.km.BugCheck(); bc != nil {
		L.Push(bugCheckTable(L, bc))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// machineHALSources is m:hal_sources(): one row per source some HAL of
// the machine supports, in source order.
func (rt *Runtime) machineHALSources(L *lua.LState) int {
	m := checkMachine(L, "m:hal_sources")
	states, err := m.km.HALSources()
	if err != nil {
		rt.callError(L, m, "m:hal_sources", err)
	}
	out := L.CreateTable(len(states), 0)
	for _, s := range states {
		row := L.CreateTable(0, 11)
		row.RawSetString("source", lua.LNumber(s.Source))
		row.RawSetString("name", lua.LString(s.Name))
		row.RawSetString("description", lua.LString(s.Description))
		row.RawSetString("supported", lua.LBool(s.Supported))
		row.RawSetString("interval", lua.LNumber(s.Interval))
		row.RawSetString("min", lua.LNumber(s.Bounds.Min))
		row.RawSetString("max", lua.LNumber(s.Bounds.Max))
		row.RawSetString("default", lua.LNumber(s.Bounds.Default))
		row.RawSetString("hal", lua.LString(s.HAL))
		row.RawSetString("units", lua.LString(s.Units))
		row.RawSetString("precise", lua.LBool(s.Precise))
		out.Append(row)
	}
	L.Push(out)
	return 1
}

// machineHALLog is m:hal_log(): the kernel's calls into the HAL, one row
// per processor addressed.
func (rt *Runtime) machineHALLog(L *lua.LState) int {
	m := checkMachine(L, "m:hal_log")
	calls := m.km.HALLog()
	out := L.CreateTable(len(calls), 0)
	for _, c := range calls {
		row := L.CreateTable(0, 7)
		if c.HAL != "" {
			row.RawSetString("hal", lua.LString(c.HAL))
		}
		row.RawSetString("cpu", lua.LNumber(c.CPU))
		row.RawSetString("call", lua.LString(c.Call))
		if c.Class >= 0 {
			row.RawSetString("class", lua.LNumber(c.Class))
		}
		row.RawSetString("source", lua.LNumber(c.Source))
		if c.HasInterval {
			row.RawSetString("interval", lua.LNumber(c.Interval))
		}
		if c.Call == "query" {
			row.RawSetString("supported", lua.LBool(c.Supported))
		}
		out.Append(row)
	}
	L.Push(out)
	return 1
}

// machineOnHALCall is m:on_hal_call(fn): fn(call) runs at the start of
// every kernel call into a HAL, before the HAL acts, with
// call = { call = "query"|"set"|"start"|"stop"|"counters", hal = NAME,
// source = n, cpus = { n, ... } } (kernel.Machine.OnHALCall). HAL calls fn
// itself causes do not run it again; an error in fn stops the machine and
// ends the service call with it. m:on_hal_call(nil) removes the hook.
func (rt *Runtime) machineOnHALCall(L *lua.LState) int {
	const fn = "m:on_hal_call"
	m := checkMachine(L, fn)
	if L.GetTop() > 2 {
		L.RaiseError("%s: takes one argument (a function, or nil), got %d", fn, L.GetTop()-1)
	}
	switch f := L.Get(2).(type) {
	case *lua.LNilType:
		m.km.OnHALCall(nil)
	case *lua.LFunction:
		m.km.OnHALCall(func(call, hal string, src nt.Source, cpus []int) error {
			L := rt.active // the state whose service call reached the HAL (a coroutine's, maybe)
			row := L.CreateTable(0, 4)
			row.RawSetString("call", lua.LString(call))
			row.RawSetString("hal", lua.LString(hal))
			row.RawSetString("source", lua.LNumber(src))
			cs := L.CreateTable(len(cpus), 0)
			for _, c := range cpus {
				cs.Append(lua.LNumber(c))
			}
			row.RawSetString("cpus", cs)
			return L.CallByParam(lua.P{Fn: f, NRet: 0, Protect: true}, row)
		})
	default:
		L.RaiseError("%s: argument #1 (hook): expected a function or nil, got %s", fn, typeName(L.Get(2)))
	}
	return 0
}

// machineInject is m:inject{ pool_failures = n, map_failures = n }.
func (rt *Runtime) machineInject(L *lua.LState) int {
	const fn = "m:inject"
	m := checkMachine(L, fn)
	f := CheckFields(L, fn, L.Get(2), "pool_failures", "map_failures")
	pool := f.Int("pool_failures", 0, 0, math.MaxInt32)
	maps := f.Int("map_failures", 0, 0, math.MaxInt32)
	rt.mustRun(L, m, fn)
	if pool > 0 {
		m.km.InjectPoolFailures(pool)
	}
	if maps > 0 {
		m.km.InjectMapFailures(maps)
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
