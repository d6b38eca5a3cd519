package luart

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/kernel/nt"
)

// newLabModule builds the proflab module: constants (resolved on first
// read, constantIndex), value helpers, checks, parameters, records, the
// log, and the library's strictness (lab.options, lab.arguments,
// lab.suggest: core/luavm's checks, which the scripts/ library calls).
func (rt *Runtime) newLabModule() *lua.LTable {
	L := rt.L
	lab := L.CreateTable(0, len(labFuncs)+3)
	meta := L.CreateTable(0, 1)
	meta.RawSetString("__index", L.NewFunction(rt.constantIndex))
	L.SetMetatable(lab, meta)
	lab.RawSetString("NtCurrentProcess", lua.LNumber(-1))
	for _, f := range labFuncs {
		lab.RawSetString(f.key, rt.Func(f.name, f.fn(rt)))
	}
	// lab.params is made on its first read (constantIndex, below): a
	// run that reads no parameter does not pay for its proxy
	lab.RawSetString("seed", luavm.ResultValue(L, rt.cfg.Seed))
	return lab
}

// labFuncs are the proflab module's functions, in the order they are set
// (so that pairs(lab) visits them in one order in every run): the key,
// the name messages and ActiveCall give, and the function for a runtime.
var labFuncs = []struct {
	key, name string
	fn        func(rt *Runtime) lua.LGFunction
}{
	{"NT_SUCCESS", "lab.NT_SUCCESS", func(rt *Runtime) lua.LGFunction { return rt.labNTSuccess }},
	{"arguments", "lab.arguments", func(rt *Runtime) lua.LGFunction { return rt.ArgumentsFunc("lab.arguments") }},
	{"bugcheck_name", "lab.bugcheck_name", func(rt *Runtime) lua.LGFunction { return rt.labBugCheckName }},
	{"check", "lab.check", func(rt *Runtime) lua.LGFunction { return rt.labCheck }},
	{"log", "lab.log", func(rt *Runtime) lua.LGFunction { return rt.Print }}, // as print: one line of the run log
	{"machine", "lab.machine", func(rt *Runtime) lua.LGFunction {
		return func(L *lua.LState) int {
			rt.objectTypes()
			return rt.labMachine(L)
		}
	}},
	{"options", "lab.options", func(rt *Runtime) lua.LGFunction { return rt.OptionsFunc("lab.options") }},
	{"record", "lab.record", func(rt *Runtime) lua.LGFunction { return rt.labRecord }},
	{"sampling_test", "lab.sampling_test", func(rt *Runtime) lua.LGFunction { return rt.labSamplingTest }},
	{"status_name", "lab.status_name", func(rt *Runtime) lua.LGFunction { return rt.labStatusName }},
	{"suggest", "lab.suggest", func(*Runtime) lua.LGFunction { return labSuggest }},
	{"tonumber", "lab.tonumber", func(*Runtime) lua.LGFunction { return labToNumber }},
	{"u64", "lab.u64", func(*Runtime) lua.LGFunction { return labU64 }},
	{"win32_name", "lab.win32_name", func(rt *Runtime) lua.LGFunction { return rt.labWin32Name }},
}

// The proflab module's functions that depend on no runtime, made once.
var (
	labU64      = luavm.U64Func("lab.u64")
	labToNumber = luavm.ToNumberFunc("lab.tonumber")
	labSuggest  = luavm.SuggestFunc("lab.suggest")
)

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
	L.RaiseError("%s", luavm.MissingName("the proflab module (lab)", name, rt.labNames(t)))
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

// labStatusName is lab.status_name(st): "STATUS_PRIVILEGE_NOT_HELD", or
// the value in hex when the model does not know it.
func (rt *Runtime) labStatusName(L *lua.LState) int {
	st := luavm.NewArgs(L, "lab.status_name").Service(1, "status", 4)
	L.Push(lua.LString(nt.Status(uint32(st)).Name()))
	return 1
}

// labNTSuccess is lab.NT_SUCCESS(st): true for success and information
// statuses (the top bit clear).
func (rt *Runtime) labNTSuccess(L *lua.LState) int {
	st := luavm.NewArgs(L, "lab.NT_SUCCESS").Service(1, "status", 4)
	L.Push(lua.LBool(nt.Status(uint32(st)).Success()))
	return 1
}

// labWin32Name is lab.win32_name(code): "ERROR_BAD_LENGTH", or the value
// in decimal when the model does not know it.
func (rt *Runtime) labWin32Name(L *lua.LState) int {
	code := uint32(luavm.NewArgs(L, "lab.win32_name").Service(1, "code", 4))
	L.Push(lua.LString(win32Name(code)))
	return 1
}

// labBugCheckName is lab.bugcheck_name(code): "PAGE_FAULT_IN_NONPAGED_AREA",
// or the value in hex.
func (rt *Runtime) labBugCheckName(L *lua.LState) int {
	code := uint32(luavm.NewArgs(L, "lab.bugcheck_name").Service(1, "code", 4))
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
		msg = rt.ToString(L, L.Get(2))
	}
	rt.checks = append(rt.checks, Check{Passed: passed, Where: rt.CallerWhere(L), Message: msg})
	L.Push(lua.LBool(passed))
	return 1
}

// labRecord is lab.record{ key = value, ... }: metrics for the run's
// result row; later records replace earlier values of the same keys.
func (rt *Runtime) labRecord(L *lua.LState) int {
	a := luavm.NewArgs(L, "lab.record")
	t := a.Table(1, "metrics")
	merged := map[string]any{}
	err := luavm.EachPair(t, func(k, v lua.LValue) error {
		ks, ok := k.(lua.LString)
		if !ok {
			return fmt.Errorf("keys must be strings (lab.record{ name = value }), found the key %s", lua.LVAsString(k))
		}
		gv, err := luavm.ToGo(v)
		if err != nil {
			return fmt.Errorf("field %q: %s", string(ks), err)
		}
		merged[string(ks)] = gv
		return nil
	})
	if err != nil {
		a.Errorf(1, "metrics", "%s", err)
	}
	for k, v := range merged {
		rt.records[k] = v
	}
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
