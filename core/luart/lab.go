package luart

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/kernel/nt"
)

// newLabModule builds the proflab module: constants (resolved on first
// read, constantIndex), value helpers, checks, parameters, records and
// the log.
func (rt *Runtime) newLabModule() *lua.LTable {
	L := rt.L
	lab := L.NewTable()
	meta := L.NewTable()
	meta.RawSetString("__index", L.NewFunction(rt.constantIndex))
	L.SetMetatable(lab, meta)
	lab.RawSetString("NtCurrentProcess", lua.LNumber(-1))
	funcs := map[string]lua.LGFunction{
		"u64":           rt.labU64,
		"tonumber":      rt.labToNumber,
		"status_name":   rt.labStatusName,
		"NT_SUCCESS":    rt.labNTSuccess,
		"win32_name":    rt.labWin32Name,
		"bugcheck_name": rt.labBugCheckName,
		"check":         rt.labCheck,
		"record":        rt.labRecord,
		"log":           rt.labLog,
		"machine": func(L *lua.LState) int {
			rt.objectTypes()
			return rt.labMachine(L)
		},
	}
	for name, f := range funcs {
		lab.RawSetString(name, rt.fn("lab."+name, f))
	}
	// lab.params is made on its first read (constantIndex, below): a
	// run that reads no parameter does not pay for its proxy
	lab.RawSetString("seed", ResultValue(L, rt.cfg.Seed))
	return lab
}

// constantIndex is the proflab module's __index(t, name): the constant of
// that name, kept in t so that the next read is a plain field read; any
// other name raises an error naming it and the closest names.
func (rt *Runtime) constantIndex(L *lua.LState) int {
	t, name := L.CheckTable(1), L.Get(2)
	if name == lua.LString("params") && rt.paramsProxy == nil {
		L.Push(rt.labParams(t))
		return 1
	}
	if s, ok := name.(lua.LString); ok {
		if v, ok := constantValues()[string(s)]; ok {
			t.RawSetString(string(s), v)
			L.Push(v)
			return 1
		}
	}
	L.RaiseError("%s", missingName("the proflab module (lab)", name, rt.labNames(t)))
	return 0
}

// labNames are the names of the proflab module: its constants and the
// fields of t.
func (rt *Runtime) labNames(t *lua.LTable) []string {
	names := make([]string, 0, len(constantValues())+16)
	for name := range constantValues() {
		names = append(names, name)
	}
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			names = append(names, string(s))
		}
	})
	return names
}

// labU64 is lab.u64(v): an exact unsigned 64-bit value from a number, a
// string ("0x…" or decimal) or a u64.
func (rt *Runtime) labU64(L *lua.LState) int {
	PushU64(L, NewArgs(L, "lab.u64").U64(1, "v"))
	return 1
}

// labToNumber is lab.tonumber(u): a u64 (or number) as a Lua number, an
// error unless it is below 2^53.
func (rt *Runtime) labToNumber(L *lua.LState) int {
	a := NewArgs(L, "lab.tonumber")
	lv := a.Get(1)
	if n, ok := lv.(lua.LNumber); ok {
		L.Push(n)
		return 1
	}
	v, ok := AsU64(lv)
	if !ok {
		a.Errorf(1, "u", "expected a u64 or a number, got %s", typeName(lv))
	}
	if v >= exactLimit {
		a.Errorf(1, "u", "%s is 2^53 or more, so a Lua number cannot hold it exactly; keep it as a u64", U64(v))
	}
	L.Push(lua.LNumber(v))
	return 1
}

// labStatusName is lab.status_name(st): "STATUS_PRIVILEGE_NOT_HELD", or
// the value in hex when the model does not know it.
func (rt *Runtime) labStatusName(L *lua.LState) int {
	st := NewArgs(L, "lab.status_name").Service(1, "status", 4)
	L.Push(lua.LString(nt.Status(uint32(st)).Name()))
	return 1
}

// labNTSuccess is lab.NT_SUCCESS(st): true for success and information
// statuses (the top bit clear).
func (rt *Runtime) labNTSuccess(L *lua.LState) int {
	st := NewArgs(L, "lab.NT_SUCCESS").Service(1, "status", 4)
	L.Push(lua.LBool(nt.Status(uint32(st)).Success()))
	return 1
}

// labWin32Name is lab.win32_name(code): "ERROR_BAD_LENGTH", or the value
// in decimal when the model does not know it.
func (rt *Runtime) labWin32Name(L *lua.LState) int {
	code := uint32(NewArgs(L, "lab.win32_name").Service(1, "code", 4))
	L.Push(lua.LString(win32Name(code)))
	return 1
}

// labBugCheckName is lab.bugcheck_name(code): "PAGE_FAULT_IN_NONPAGED_AREA",
// or the value in hex.
func (rt *Runtime) labBugCheckName(L *lua.LState) int {
	code := uint32(NewArgs(L, "lab.bugcheck_name").Service(1, "code", 4))
	L.Push(lua.LString(bugCheckName(code)))
	return 1
}

// labCheck is lab.check(cond, message): records a check with the caller's
// file:line; a false one fails the scenario, which goes on. It returns
// whether the check passed.
func (rt *Runtime) labCheck(L *lua.LState) int {
	passed := lua.LVAsBool(L.Get(1))
	msg := ""
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		msg = rt.tostring(L, L.Get(2))
	}
	rt.checks = append(rt.checks, Check{Passed: passed, Where: rt.callerWhere(L), Message: msg})
	L.Push(lua.LBool(passed))
	return 1
}

// callerWhere is "file:line" of the scenario code that called the current
// Go function: the nearest Lua frame that is not a library module, so that
// a check made by a helper of scripts/ points at the scenario's line.
func (rt *Runtime) callerWhere(L *lua.LState) string {
	first := ""
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			if L.Parent != nil { // a coroutine: go on in the one that resumed it
				L, level = L.Parent, 0
				continue
			}
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.What == "G" {
			continue
		}
		where := fmt.Sprintf("%s:%d", dbg.Source, dbg.CurrentLine)
		if first == "" {
			first = where
		}
		if !rt.isLibraryChunk(dbg.Source) {
			return where
		}
	}
	if first == "" {
		return "?"
	}
	return first
}

// labRecord is lab.record{ key = value, ... }: metrics for the run's
// result row; later records replace earlier values of the same keys.
func (rt *Runtime) labRecord(L *lua.LState) int {
	a := NewArgs(L, "lab.record")
	t := a.Table(1, "metrics")
	var problem string
	merged := map[string]any{}
	t.ForEach(func(k, v lua.LValue) {
		if problem != "" {
			return
		}
		ks, ok := k.(lua.LString)
		if !ok {
			problem = fmt.Sprintf("keys must be strings (lab.record{ name = value }), found the key %s", lua.LVAsString(k))
			return
		}
		gv, err := toGo(v, 0)
		if err != nil {
			problem = fmt.Sprintf("field %q: %s", string(ks), err)
			return
		}
		merged[string(ks)] = gv
	})
	if problem != "" {
		a.Errorf(1, "metrics", "%s", problem)
	}
	for k, v := range merged {
		rt.records[k] = v
	}
	return 0
}

// labLog is lab.log(...): one line in the run's log, the arguments
// converted by tostring and separated by tabs.
func (rt *Runtime) labLog(L *lua.LState) int {
	rt.logLine(rt.joinArgs(L, 1))
	return 0
}

// win32Name names a Win32 error code the model returns.
func win32Name(code uint32) string {
	for name, v := range nt.Win32Errors() {
		if v == code {
			return name
		}
	}
	return fmt.Sprintf("%d", code)
}

// bugCheckName names a bug-check code.
func bugCheckName(code uint32) string {
	if n := nt.BugCheckName(code); n != "BUGCHECK" {
		return n
	}
	return fmt.Sprintf("0x%X", code)
}
