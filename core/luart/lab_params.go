package luart

import (
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
)

// lab.params is a proxy: an empty table whose metatable reads (and
// writes) the run's parameters, so that the runtime knows which ones the
// scenario read. A sweep axis nobody reads (a typo: intervall) used to run
// every run at the scenario's default without a word; the sweep now says
// so (ParamsRead). pairs and next on lab.params walk the parameters (and
// count them all as read); rawget(lab.params, k) sees the empty proxy.

// newParams builds lab.params over the run's parameters.
func (rt *Runtime) newParams(L *lua.LState) *lua.LTable {
	rt.params = luavm.ToLua(L, rt.cfg.Params).(*lua.LTable) // nil: an empty table
	rt.paramsRead = map[string]bool{}
	proxy := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		k := L.Get(2)
		if s, ok := k.(lua.LString); ok {
			rt.paramsRead[string(s)] = true
		}
		L.Push(rt.params.RawGet(k))
		return 1
	}))
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		rt.params.RawSet(L.Get(2), L.Get(3))
		return 0
	}))
	L.SetMetatable(proxy, mt)
	rt.paramsProxy = proxy
	return proxy
}

// labParams makes lab.params (once) and keeps it in the module t.
func (rt *Runtime) labParams(t *lua.LTable) *lua.LTable {
	if rt.paramsProxy == nil {
		t.RawSetString("params", rt.newParams(rt.L))
	}
	return rt.paramsProxy
}

// installParamsIteration makes pairs and next on lab.params walk the
// parameters behind the proxy; on any other value they are Lua's own.
func (rt *Runtime) installParamsIteration() {
	L := rt.L
	for _, name := range []string{"pairs", "next"} {
		orig, ok := L.GetGlobal(name).(*lua.LFunction)
		if !ok {
			continue
		}
		L.SetGlobal(name, L.NewFunction(func(L *lua.LState) int {
			top := L.GetTop()
			if t, ok := L.Get(1).(*lua.LTable); ok && t == rt.paramsProxy {
				rt.params.ForEach(func(k, _ lua.LValue) {
					if s, ok := k.(lua.LString); ok {
						rt.paramsRead[string(s)] = true
					}
				})
				L.Replace(1, rt.params)
			}
			L.Push(orig)
			for i := 1; i <= top; i++ {
				L.Push(L.Get(i))
			}
			L.Call(top, lua.MultRet)
			return L.GetTop() - top
		}))
	}
}

// ParamsRead are the names of the run's parameters that the scenario
// read from lab.params, sorted.
func (rt *Runtime) ParamsRead() []string {
	var out []string
	for k := range rt.paramsRead {
		if rt.params != nil && rt.params.RawGetString(k) != lua.LNil {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
