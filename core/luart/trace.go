package luart

import (
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// sessionTypeName is the registry key of the trace session metatable.
const sessionTypeName = "proflab.session"

// session is the Go side of a trace session userdata.
type session struct {
	m  *machine
	ts *kernel.TraceSession
}

// machineStartKernelLogger is m:start_kernel_logger{ profile = true }: the
// NT Kernel Logger, with EVENT_TRACE_FLAG_PROFILE as given (absent:
// false). A second start while one runs is a Lua error.
func (rt *Runtime) machineStartKernelLogger(L *lua.LState) int {
	const fn = "m:start_kernel_logger"
	m := checkMachine(L, fn)
	f := CheckFields(L, fn, L.Get(2), "profile")
	profile := f.Bool("profile", false)
	rt.mustRun(L, m, fn)
	ts, err := m.km.StartKernelLogger(profile)
	if err != nil {
		if errors.Is(err, kernel.ErrLoggerRunning) {
			L.RaiseError("%s: the NT Kernel Logger is already running (there is one per machine): call s:stop() on the running session first", fn)
		}
		if bc := rt.callError(L, m, fn, err); bc != nil {
			L.RaiseError("%s: starting the logger bug-checked the machine: %v", fn, bc)
		}
	}
	if rt.cfg.Outputs != nil {
		rt.cfg.Outputs.AddSession(m.km, ts)
	}
	ud := L.NewUserData()
	ud.Value = &session{m: m, ts: ts}
	ud.Metatable = L.GetTypeMetatable(sessionTypeName)
	L.Push(ud)
	return 1
}

// registerSession installs the session metatable.
func (rt *Runtime) registerSession(L *lua.LState) {
	mt := L.NewTypeMetatable(sessionTypeName)
	idx := L.NewTable()
	idx.RawSetString("events", rt.fn("s:events", rt.sessionEvents))
	idx.RawSetString("stop", rt.fn("s:stop", rt.sessionStop))
	idx.RawSetString("running", rt.fn("s:running", func(L *lua.LState) int {
		L.Push(lua.LBool(checkSession(L, "s:running").ts.Running()))
		return 1
	}))
	mt.RawSetString("__index", idx)
	mt.RawSetString("__tostring", rt.fn("session tostring", func(L *lua.LState) int {
		s := checkSession(L, "tostring")
		state := "stopped"
		if s.ts.Running() {
			state = "running"
		}
		L.Push(lua.LString(fmt.Sprintf("NT Kernel Logger session (%s, profile %v)", state, s.ts.Profile())))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(sessionTypeName))
}

func checkSession(L *lua.LState, fn string) *session {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if s, ok := ud.Value.(*session); ok {
			return s
		}
	}
	L.RaiseError("%s: call it as a method, s:%s(...), on a session from m:start_kernel_logger{...} (got %s)", fn, fn[2:], typeName(L.Get(1)))
	return nil
}

// sessionStop is s:stop().
func (rt *Runtime) sessionStop(L *lua.LState) int {
	s := checkSession(L, "s:stop")
	rt.mustRun(L, s.m, "s:stop")
	if err := s.ts.Stop(); err != nil {
		if bc := rt.callError(L, s.m, "s:stop", err); bc != nil {
			L.RaiseError("s:stop: stopping the logger bug-checked the machine: %v", bc)
		}
	}
	return 0
}

// sessionEvents is s:events(): every event so far, oldest first, with
// the fields of its hook by their documented names.
func (rt *Runtime) sessionEvents(L *lua.LState) int {
	s := checkSession(L, "s:events")
	evs := s.ts.Events()
	out := L.CreateTable(len(evs), 0)
	for _, e := range evs {
		row := L.CreateTable(0, 8)
		row.RawSetString("hook", lua.LNumber(e.Hook))
		row.RawSetString("cpu", lua.LNumber(e.CPU))
		row.RawSetString("time", ResultValue(L, e.Time))
		switch e.Hook {
		case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE:
			row.RawSetString("InstructionPointer", ResultValue(L, e.InstructionPointer))
			row.RawSetString("ThreadId", lua.LNumber(e.ThreadId))
			row.RawSetString("Count", lua.LNumber(e.Count))
			row.RawSetString("ExecutingIsr", lua.LBool(e.ExecutingIsr))
			row.RawSetString("ExecutingDpc", lua.LBool(e.ExecutingDpc))
		case nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT:
			row.RawSetString("InstructionPointer", ResultValue(L, e.InstructionPointer))
			row.RawSetString("ThreadId", lua.LNumber(e.ThreadId))
			row.RawSetString("ProfileSource", lua.LNumber(e.ProfileSource))
		case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL:
			row.RawSetString("Source", lua.LNumber(e.Source))
			row.RawSetString("NewInterval", lua.LNumber(e.NewInterval))
			row.RawSetString("OldInterval", lua.LNumber(e.OldInterval))
		}
		out.Append(row)
	}
	L.Push(out)
	return 1
}
