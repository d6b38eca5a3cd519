package luart

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// machineTypeName is the registry key of the machine metatable.
const machineTypeName = "proflab.machine"

// machine is the Go side of a machine userdata.
type machine struct {
	km   *kernel.Machine
	sim  *sim.Sim // the simulated processors that m:run drives
	seed uint64
	hals []string

	mapped  uint64            // bytes the bindings' allocations hold (caller_memory.go)
	regions map[region]uint64 // their sizes by owner and address
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
		idx.RawSetString(name, rt.Func("m:"+name, f))
	}
	rt.machIdx = idx
	mt.RawSetString("__index", rt.Func("machine index", func(L *lua.LState) int {
		key := L.Get(2)
		if v := idx.RawGet(key); v != lua.LNil {
			L.Push(v)
			return 1
		}
		L.RaiseError("a machine has no method %s; its methods are %s", lua.LVAsString(key), strings.Join(sortedKeys(methods), ", "))
		return 0
	}))
	mt.RawSetString("__tostring", rt.Func("machine tostring", func(L *lua.LState) int {
		m := checkMachine(L, "tostring")
		L.Push(lua.LString(fmt.Sprintf("machine (Windows %s %s, %d processors)", m.km.Version(), m.km.Arch(), m.km.CPUCount())))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(machineTypeName))
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
		fn, strings.TrimPrefix(fn, "m:"), luavm.TypeName(L.Get(1)))
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

// raisePlugin raises err as a Lua error and marks the run as failed by a
// HAL plugin (exit status 3), even if the script catches it.
func (rt *Runtime) raisePlugin(L *lua.LState, err error) {
	if rt.pluginFailure == nil {
		rt.pluginFailure = &runerr.Error{Kind: runerr.KindPlugin, Message: L.Where(1) + " " + err.Error()}
	}
	L.RaiseError("%s", err.Error())
}

// bugCheckTable is { code = n, name = "…", params = {p1, p2, p3, p4} }.
func bugCheckTable(L *lua.LState, bc *kernel.BugCheck) *lua.LTable {
	t := L.CreateTable(0, 3)
	t.RawSetString("code", lua.LNumber(bc.Code))
	t.RawSetString("name", lua.LString(bugCheckName(bc.Code)))
	params := L.CreateTable(4, 0)
	for _, p := range bc.Params {
		params.Append(luavm.ResultValue(L, p))
	}
	t.RawSetString("params", params)
	return t
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
// source = n, cpus = { n, ... } } (kernel.Machine.OnHALCall); hal is nil
// for a source no HAL supports, as m:hal_log() has it. HAL calls fn
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
			L := rt.Active() // the state whose service call reached the HAL (a coroutine's, maybe)
			row := L.CreateTable(0, 4)
			row.RawSetString("call", lua.LString(call))
			if hal != "" { // a source no HAL supports: hal is nil, as in m:hal_log()
				row.RawSetString("hal", lua.LString(hal))
			}
			row.RawSetString("source", lua.LNumber(src))
			cs := L.CreateTable(len(cpus), 0)
			for _, c := range cpus {
				cs.Append(lua.LNumber(c))
			}
			row.RawSetString("cpus", cs)
			return rt.CallProtected(L, f, row)
		})
	default:
		L.RaiseError("%s: argument #1 (hook): expected a function or nil, got %s", fn, luavm.TypeName(L.Get(2)))
	}
	return 0
}

// machineInject is m:inject{ pool_failures = n, map_failures = n }.
func (rt *Runtime) machineInject(L *lua.LState) int {
	const fn = "m:inject"
	m := checkMachine(L, fn)
	f := luavm.CheckFields(L, fn, L.Get(2), "pool_failures", "map_failures")
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
