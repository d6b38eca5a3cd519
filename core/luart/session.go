package luart

import (
	"errors"
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
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

// registerSession installs the session metatable.
func (rt *Runtime) registerSession(L *lua.LState) {
	mt := L.NewTypeMetatable(sessionTypeName)
	idx := L.NewTable()
	idx.RawSetString("events", rt.Func("s:events", rt.sessionEvents))
	idx.RawSetString("each", rt.Func("s:each", rt.sessionEach))
	idx.RawSetString("count", rt.Func("s:count", rt.sessionCount))
	idx.RawSetString("stop", rt.Func("s:stop", rt.sessionStop))
	idx.RawSetString("running", rt.Func("s:running", func(L *lua.LState) int {
		L.Push(lua.LBool(checkSession(L, "s:running").ts.Running()))
		return 1
	}))
	mt.RawSetString("__index", idx)
	mt.RawSetString("__tostring", rt.Func("session tostring", func(L *lua.LState) int {
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
	L.RaiseError("%s: call it as a method, s:%s(...), on a session from m:start_kernel_logger{...} (got %s)", fn, fn[2:], luavm.TypeName(L.Get(1)))
	return nil
}

// machineStartKernelLogger is m:start_kernel_logger{ profile = true,
// stackwalk = { "Profile" } }: the NT Kernel Logger, with
// EVENT_TRACE_FLAG_PROFILE as given (absent: false), walking the stacks
// of the events stackwalk names (xperf -stackwalk's names, see
// stackWalkNames). A second start while one runs is a Lua error.
func (rt *Runtime) machineStartKernelLogger(L *lua.LState) int {
	const fn = "m:start_kernel_logger"
	m := checkMachine(L, fn)
	f := luavm.CheckFields(L, fn, L.Get(2), "profile", "stackwalk")
	profile := f.Bool("profile", false)
	var hooks []uint16
	for _, name := range f.Strings("stackwalk", nil) {
		h, ok := stackWalkHook(name)
		if !ok {
			f.Errorf("stackwalk", "%q is not an event whose stack the kernel logger walks here; the names (as xperf -stackwalk's) are %s", name, stackWalkList())
		}
		hooks = append(hooks, h)
	}
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
	if err := ts.SetStackWalk(hooks); err != nil {
		L.RaiseError("%s: %v", fn, err)
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

// sessionEvents is s:events([filter]): the events so far, oldest first,
// with the fields of their hook by their documented names; a filter
// (eventFilter) keeps some of them, and first/count page through them
// (first = 1 the first match, count the most to return), so a session of
// millions of events is read a page at a time.
func (rt *Runtime) sessionEvents(L *lua.LState) int {
	const fn = "s:events"
	s := checkSession(L, fn)
	flt := readEventFilter(L, fn, true)
	out := L.CreateTable(0, 0)
	n := 0
	ended := false
	err := flt.visit(s.ts.Cursor(), func(e kernel.Event) bool {
		out.Append(eventRow(L, e))
		n++
		if n%eventsCheckEvery == 0 && rt.Context().Err() != nil {
			ended = true
			return false
		}
		return flt.count < 0 || n < flt.count
	})
	if ended {
		rt.RaiseEnded(L, fn, fmt.Sprintf("after building %d events as one table", n),
			"visit them one at a time with s:each{…}, count them with s:count{…}, or page through them with s:events{ first =, count = }")
	}
	if err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	L.Push(out)
	return 1
}

// eventsCheckEvery is how often s:events looks at the run's context: a
// table of a million events must stop at the memory budget (or a
// Ctrl-C) at the scenario's line rather than be abandoned.
const eventsCheckEvery = 1024

// sessionEach is s:each([filter]): an iterator over the events (for e in
// s:each{ hook = … } do … end) that reads them one by one and holds none
// of them, so a visit of every event of a long session takes the memory
// of one.
func (rt *Runtime) sessionEach(L *lua.LState) int {
	const fn = "s:each"
	s := checkSession(L, fn)
	flt := readEventFilter(L, fn, false)
	cur := s.ts.Cursor()
	L.Push(rt.Func("s:each's iterator", func(L *lua.LState) int {
		var found *kernel.Event
		err := flt.visit(cur, func(e kernel.Event) bool {
			found = &e
			return false
		})
		if err != nil {
			L.RaiseError("%s: %v", fn, err)
		}
		if found == nil {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(eventRow(L, *found))
		return 1
	}))
	return 1
}

// sessionCount is s:count([filter]): the number of events that match,
// counted without building them.
func (rt *Runtime) sessionCount(L *lua.LState) int {
	const fn = "s:count"
	s := checkSession(L, fn)
	flt := readEventFilter(L, fn, false)
	n := 0
	if err := flt.visit(s.ts.Cursor(), func(kernel.Event) bool { n++; return true }); err != nil {
		L.RaiseError("%s: %v", fn, err)
	}
	L.Push(lua.LNumber(n))
	return 1
}

// eventFilter selects events: by hook, by processor, by time (from ≤
// time ≤ to, in the events' 100 ns units), and for s:events a page of
// the matches (skip the first-1, keep count; count < 0: all).
type eventFilter struct {
	hook, cpu int64 // -1: any
	from, to  uint64
	skip      int
	count     int
}

// readEventFilter reads the optional filter table of s:events, s:each
// and s:count; paged admits first and count.
func readEventFilter(L *lua.LState, fn string, paged bool) eventFilter {
	flt := eventFilter{hook: -1, cpu: -1, to: math.MaxUint64, count: -1}
	if L.GetTop() < 2 || L.Get(2) == lua.LNil {
		return flt
	}
	names := []string{"hook", "cpu", "from", "to"}
	if paged {
		names = append(names, "first", "count")
	}
	f := luavm.CheckFields(L, fn, L.Get(2), names...)
	if f.Has("hook") {
		flt.hook = int64(f.Uint("hook", 0, 0, math.MaxUint16))
	}
	if f.Has("cpu") {
		flt.cpu = int64(f.Int("cpu", 0, 0, 63))
	}
	flt.from = f.Uint("from", 0, 0, math.MaxUint64)
	flt.to = f.Uint("to", math.MaxUint64, 0, math.MaxUint64)
	if paged {
		flt.skip = f.Int("first", 1, 1, math.MaxInt32) - 1
		flt.count = f.Int("count", -1, 0, math.MaxInt32)
		if !f.Has("count") {
			flt.count = -1
		}
	}
	return flt
}

// visit reads events from cur and calls keep with each match (after the
// page's first skip matches) until keep returns false or the events end.
func (flt *eventFilter) visit(cur kernel.EventCursor, keep func(kernel.Event) bool) error {
	if flt.count == 0 {
		return nil
	}
	for {
		e, ok := cur.Next()
		if !ok {
			return cur.Err()
		}
		if (flt.hook >= 0 && int64(e.Hook) != flt.hook) || (flt.cpu >= 0 && int64(e.CPU) != flt.cpu) || e.Time < flt.from || e.Time > flt.to {
			continue
		}
		if flt.skip > 0 {
			flt.skip--
			continue
		}
		if !keep(e) {
			return nil
		}
	}
}

// eventRow is one event as a Lua table: hook, cpu, time, and the fields
// of its hook by their documented names.
func eventRow(L *lua.LState, e kernel.Event) *lua.LTable {
	row := L.CreateTable(0, 8)
	row.RawSetString("hook", lua.LNumber(e.Hook))
	row.RawSetString("cpu", lua.LNumber(e.CPU))
	row.RawSetString("time", luavm.ResultValue(L, e.Time))
	switch e.Hook {
	case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE:
		row.RawSetString("InstructionPointer", luavm.ResultValue(L, e.InstructionPointer))
		row.RawSetString("ThreadId", lua.LNumber(e.ThreadId))
		row.RawSetString("Count", lua.LNumber(e.Count))
		row.RawSetString("ExecutingIsr", lua.LBool(e.ExecutingIsr))
		row.RawSetString("ExecutingDpc", lua.LBool(e.ExecutingDpc))
	case nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT:
		row.RawSetString("InstructionPointer", luavm.ResultValue(L, e.InstructionPointer))
		row.RawSetString("ThreadId", lua.LNumber(e.ThreadId))
		row.RawSetString("ProfileSource", lua.LNumber(e.ProfileSource))
	case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL:
		row.RawSetString("Source", lua.LNumber(e.Source))
		row.RawSetString("NewInterval", lua.LNumber(e.NewInterval))
		row.RawSetString("OldInterval", lua.LNumber(e.OldInterval))
	case kernel.HookStackWalk:
		row.RawSetString("EventTimeStamp", luavm.ResultValue(L, e.Time))
		row.RawSetString("StackProcess", lua.LNumber(e.ProcessId))
		row.RawSetString("StackThread", lua.LNumber(e.ThreadId))
		frames := L.CreateTable(len(e.Frames)+1, 0)
		frames.Append(luavm.ResultValue(L, e.InstructionPointer))
		for _, f := range e.Frames {
			frames.Append(luavm.ResultValue(L, f))
		}
		row.RawSetString("Frames", frames)
	}
	return row
}

// stackWalkNames are the names m:start_kernel_logger's stackwalk takes,
// as xperf -stackwalk spells them, with the hooks they walk.
var stackWalkNames = []struct {
	name string
	hook uint16
}{
	{"Profile", nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE},
	{"PmcInterrupt", nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT},
}

// stackWalkHook is the hook of a stackwalk name (case as xperf's, which
// ignores case).
func stackWalkHook(name string) (uint16, bool) {
	for _, n := range stackWalkNames {
		if strings.EqualFold(n.name, name) {
			return n.hook, true
		}
	}
	return 0, false
}

// stackWalkList lists the stackwalk names for an error.
func stackWalkList() string {
	q := make([]string, len(stackWalkNames))
	for i, n := range stackWalkNames {
		q[i] = fmt.Sprintf("%q", n.name)
	}
	return strings.Join(q, ", ")
}
