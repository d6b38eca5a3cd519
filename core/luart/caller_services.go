package luart

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/kernel"
)

// knownServices are the services some modelled version declares: a caller
// answers to these names even on a version that lacks them, so that the
// call raises a clear error instead of "no method".
var knownServices = []string{
	"NtCreateProfile", "NtCreateProfileEx", "NtStartProfile", "NtStopProfile", "NtClose",
	"NtQueryIntervalProfile", "NtSetIntervalProfile", "NtQuerySystemInformation",
	"NtSetSystemInformation", "TraceQueryInformation", "TraceSetInformation",
}

func isServiceName(name string) bool { return slices.Contains(knownServices, name) }

func hasService(km *kernel.Machine, name string) bool {
	_, ok := km.Service(name)
	return ok
}

// serviceNames lists the services of a machine's version.
func serviceNames(km *kernel.Machine) []string {
	var out []string
	for _, s := range km.Services() {
		out = append(out, s.Name)
	}
	return out
}

// serviceFunc is the Lua function of one service: x:Name(args...) with
// the modelled version's declaration, positionally. Each argument is a
// number or u64 (negative: two's complement at the parameter's width;
// wider: truncated), nil or missing is 0. It returns the NTSTATUS (a
// Win32 error code for the Trace functions), or nil and the bug check's
// table when this call bug-checked the machine.
func (rt *Runtime) serviceFunc(name string) lua.LGFunction {
	return func(L *lua.LState) int {
		c, ok := toCaller(L.Get(1))
		if !ok {
			L.RaiseError("%s: call it as a method, p:%s(...), on a process, thread or kernel caller (got %s)", name, name, luavm.TypeName(L.Get(1)))
		}
		fn := c.label() + ":" + name
		a := luavm.MethodArgs(L, fn)
		km := c.m.km
		svc, ok := km.Service(name)
		if !ok {
			L.RaiseError("%s: %s has no %s (its services are %s)", fn, versionText(km), name, strings.Join(serviceNames(km), ", "))
		}
		if n := a.Count(); n > len(svc.Params) {
			L.RaiseError("%s: %s declares %d parameter%s, got %d arguments: %s", fn, versionText(km), len(svc.Params), plural(len(svc.Params)), n, svc.Signature())
		}
		args := make([]uint64, a.Count())
		for i := range args {
			p := svc.Params[i]
			args[i] = a.Service(i+1, p.Name, p.Kind.Width(km.Arch()))
		}
		rt.mustRun(L, c.m, fn)
		st, err := c.actor().Call(name, args)
		if err != nil {
			var unknown *kernel.UnknownServiceError
			var arity *kernel.ArityError
			if errors.As(err, &unknown) || errors.As(err, &arity) {
				L.RaiseError("%s: %v", fn, err)
			}
			if bc := rt.callError(L, c.m, fn, err); bc != nil {
				L.Push(lua.LNil)
				L.Push(bugCheckTable(L, bc))
				return 2
			}
		}
		L.Push(lua.LNumber(st))
		return 1
	}
}

// versionText names a machine's version for messages ("Windows 3.51 x86").
func versionText(km *kernel.Machine) string {
	return fmt.Sprintf("Windows %s %s", km.Version(), km.Arch())
}
