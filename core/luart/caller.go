package luart

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// callerTypeName is the registry key of the metatable shared by
// processes (p), kernel-mode callers (k) and threads (t).
const callerTypeName = "proflab.caller"

// callerKind says what a caller userdata stands for.
type callerKind int

const (
	kindProcess callerKind = iota // p: acts as the process's main thread
	kindKernel                    // k: a system thread, PreviousMode = KernelMode
	kindThread                    // t: one thread of a process
)

// caller is the Go side of p, k and t: who makes the calls.
type caller struct {
	kind   callerKind
	m      *machine
	proc   *kernel.Process
	thread *kernel.Thread // nil for a process: its main thread at call time
}

// label names the caller in messages ("p", "k", "t").
func (c *caller) label() string {
	switch c.kind {
	case kindKernel:
		return "k"
	case kindThread:
		return "t"
	}
	return "p"
}

// actor is the thread a call runs on.
func (c *caller) actor() *kernel.Thread {
	if c.thread != nil {
		return c.thread
	}
	return c.proc.MainThread()
}

// callerMethod is a method of p, k or t, and which kinds have it.
type callerMethod struct {
	f     func(*Runtime, *lua.LState, *caller, luavm.Args) int
	kinds []callerKind // nil: every kind
}

var allKinds = []callerKind{kindProcess, kindKernel, kindThread}

// callerMethods are the methods of callers other than the services.
var callerMethods = map[string]callerMethod{
	"id":               {f: (*Runtime).callerID},
	"thread":           {f: (*Runtime).callerThread, kinds: []callerKind{kindProcess}},
	"create_thread":    {f: (*Runtime).callerCreateThread, kinds: []callerKind{kindProcess}},
	"run_on":           {f: (*Runtime).callerRunOn, kinds: []callerKind{kindKernel, kindThread}},
	"cpu":              {f: (*Runtime).callerCPU},
	"open_process":     {f: (*Runtime).callerOpenProcess},
	"duplicate_handle": {f: (*Runtime).callerDuplicateHandle},
	"alloc":            {f: (*Runtime).callerAlloc},
	"alloc_at":         {f: (*Runtime).callerAllocAt},
	"protect":          {f: (*Runtime).callerProtect},
	"free":             {f: (*Runtime).callerFree},
	"read_u8":          {f: readFunc(1)},
	"read_u16":         {f: readFunc(2)},
	"read_u32":         {f: readFunc(4)},
	"read_u64":         {f: readFunc(8)},
	"write_u8":         {f: writeFunc(1)},
	"write_u16":        {f: writeFunc(2)},
	"write_u32":        {f: writeFunc(4)},
	"write_u64":        {f: writeFunc(8)},
	"read_u32s":        {f: (*Runtime).callerReadU32s},
}

// has reports whether kind has the method.
func (cm callerMethod) has(k callerKind) bool {
	if cm.kinds == nil {
		return true
	}
	for _, x := range cm.kinds {
		if x == k {
			return true
		}
	}
	return false
}

// newCaller makes a caller userdata.
func newCaller(L *lua.LState, c *caller) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = c
	ud.Metatable = L.GetTypeMetatable(callerTypeName)
	return ud
}

// toCaller returns the caller inside lv, if it is one.
func toCaller(lv lua.LValue) (*caller, bool) {
	ud, ok := lv.(*lua.LUserData)
	if !ok {
		return nil, false
	}
	c, ok := ud.Value.(*caller)
	return c, ok
}

// registerCaller installs the caller metatable: __index finds the methods
// above, then the services of the machine's version.
func (rt *Runtime) registerCaller(L *lua.LState) {
	mt := L.NewTypeMetatable(callerTypeName)
	methods := map[string]*lua.LFunction{}
	for name, cm := range callerMethods {
		name, cm := name, cm
		methods[name] = rt.Func(name, func(L *lua.LState) int {
			c, ok := toCaller(L.Get(1))
			if !ok {
				L.RaiseError("%s: call it as a method, p:%s(...), on a process, thread or kernel caller (got %s)", name, name, luavm.TypeName(L.Get(1)))
			}
			if !cm.has(c.kind) {
				L.RaiseError("%s: called on a %s; it works on %s (call it as a method of one: x:%s(...))", name, kindNoun(c.kind), kindNouns(cm.kinds), name)
			}
			fn := c.label() + ":" + name
			return cm.f(rt, L, c, luavm.MethodArgs(L, fn))
		})
	}
	services := map[string]*lua.LFunction{}
	mt.RawSetString("__index", rt.Func("caller index", func(L *lua.LState) int {
		c, _ := toCaller(L.Get(1))
		key, ok := L.Get(2).(lua.LString)
		if !ok || c == nil {
			L.RaiseError("a %s has no field %s", luavm.TypeName(L.Get(1)), lua.LVAsString(L.Get(2)))
		}
		name := string(key)
		if cm, ok := callerMethods[name]; ok {
			if !cm.has(c.kind) {
				L.RaiseError("%s:%s is not available on a %s; it works on %s", c.label(), name, kindNoun(c.kind), kindNouns(cm.kinds))
			}
			L.Push(methods[name])
			return 1
		}
		if isServiceName(name) || hasService(c.m.km, name) {
			f, ok := services[name]
			if !ok {
				f = rt.Func(name, rt.serviceFunc(name))
				services[name] = f
			}
			L.Push(f)
			return 1
		}
		L.RaiseError("a %s has no method %q; its methods are %s, and the services of the modelled version (%s)",
			kindNoun(c.kind), name, strings.Join(methodNames(c.kind), ", "), strings.Join(serviceNames(c.m.km), ", "))
		return 0
	}))
	mt.RawSetString("__tostring", rt.Func("caller tostring", func(L *lua.LState) int {
		c, _ := toCaller(L.Get(1))
		switch c.kind {
		case kindProcess:
			L.Push(lua.LString(fmt.Sprintf("process %d (%s)", c.proc.ID(), c.proc.Name())))
		case kindKernel:
			L.Push(lua.LString(fmt.Sprintf("kernel caller (thread %d on processor %d)", c.thread.ID(), c.thread.CPU())))
		default:
			L.Push(lua.LString(fmt.Sprintf("thread %d of process %d", c.thread.ID(), c.proc.ID())))
		}
		return 1
	}))
	mt.RawSetString("__eq", rt.Func("caller eq", func(L *lua.LState) int {
		a, _ := toCaller(L.Get(1))
		b, _ := toCaller(L.Get(2))
		L.Push(lua.LBool(a != nil && b != nil && a.kind == b.kind && a.proc == b.proc && a.thread == b.thread))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(callerTypeName))
}

func kindNoun(k callerKind) string {
	switch k {
	case kindKernel:
		return "kernel caller"
	case kindThread:
		return "thread"
	}
	return "process"
}

func kindNouns(ks []callerKind) string {
	if ks == nil {
		ks = allKinds
	}
	var out []string
	for _, k := range ks {
		if k == kindProcess {
			out = append(out, "processes")
			continue
		}
		out = append(out, kindNoun(k)+"s")
	}
	return strings.Join(out, " and ")
}

// methodNames lists the methods a kind has, sorted.
func methodNames(k callerKind) []string {
	var out []string
	for _, name := range sortedKeys(callerMethods) {
		if callerMethods[name].has(k) {
			out = append(out, name)
		}
	}
	return out
}

// machineProcess is m:process{ name, privileges, integrity }.
func (rt *Runtime) machineProcess(L *lua.LState) int {
	const fn = "m:process"
	m := checkMachine(L, fn)
	f := luavm.CheckFields(L, fn, L.Get(2), "name", "privileges", "integrity")
	name := f.String("name", "app")
	privs := map[int]bool{}
	for _, p := range f.Strings("privileges", nil) {
		luid, ok := kernel.PrivilegeByName(p)
		if !ok {
			f.Errorf("privileges", "unknown privilege %q; the model knows SeSystemProfilePrivilege and SeProfileSingleProcessPrivilege", p)
		}
		privs[luid] = true
	}
	integ, err := kernel.ParseIntegrity(f.Enum("integrity", "medium", "low", "medium", "high", "system"))
	if err != nil {
		f.Errorf("integrity", "%v", err)
	}
	rt.mustRun(L, m, fn)
	p := m.km.NewProcess(name, kernel.Token{Privileges: privs, Integrity: integ})
	L.Push(newCaller(L, &caller{kind: kindProcess, m: m, proc: p}))
	return 1
}

// machineKernel is m:kernel{ cpu = 0 }: a kernel-mode caller.
func (rt *Runtime) machineKernel(L *lua.LState) int {
	const fn = "m:kernel"
	m := checkMachine(L, fn)
	f := luavm.CheckFields(L, fn, L.Get(2), "cpu")
	cpu := f.Int("cpu", 0, 0, m.km.CPUCount()-1)
	rt.mustRun(L, m, fn)
	t, err := m.km.NewKernelCaller(cpu)
	if err != nil {
		rt.callError(L, m, fn, err)
	}
	L.Push(newCaller(L, &caller{kind: kindKernel, m: m, proc: t.Process(), thread: t}))
	return 1
}

// callerID is p:id() (the process id) or t:id() / k:id() (the thread id).
func (rt *Runtime) callerID(L *lua.LState, c *caller, a luavm.Args) int {
	a.MaxArgs(0, "no arguments")
	if c.kind == kindProcess {
		L.Push(lua.LNumber(c.proc.ID()))
	} else {
		L.Push(lua.LNumber(c.thread.ID()))
	}
	return 1
}

// callerCPU is x:cpu(): the processor the caller's thread is on.
func (rt *Runtime) callerCPU(L *lua.LState, c *caller, a luavm.Args) int {
	a.MaxArgs(0, "no arguments")
	L.Push(lua.LNumber(c.actor().CPU()))
	return 1
}

// callerThread is p:thread(): the main thread.
func (rt *Runtime) callerThread(L *lua.LState, c *caller, a luavm.Args) int {
	a.MaxArgs(0, "no arguments")
	L.Push(newCaller(L, &caller{kind: kindThread, m: c.m, proc: c.proc, thread: c.proc.MainThread()}))
	return 1
}

// callerCreateThread is p:create_thread{ affinity = mask }.
func (rt *Runtime) callerCreateThread(L *lua.LState, c *caller, a luavm.Args) int {
	f := luavm.CheckFields(L, a.Fn, a.Get(1), "affinity")
	aff := f.Service("affinity", c.m.km.Arch().PointerSize(), 0)
	rt.mustRun(L, c.m, a.Fn)
	t, err := c.proc.CreateThread(aff)
	if err != nil {
		rt.callError(L, c.m, a.Fn, err)
	}
	L.Push(newCaller(L, &caller{kind: kindThread, m: c.m, proc: c.proc, thread: t}))
	return 1
}

// callerRunOn is t:run_on(cpu) / k:run_on(cpu).
func (rt *Runtime) callerRunOn(L *lua.LState, c *caller, a luavm.Args) int {
	a.MaxArgs(1, "cpu")
	cpu := a.Int(1, "cpu", 0, c.m.km.CPUCount()-1)
	rt.mustRun(L, c.m, a.Fn)
	if err := c.thread.RunOn(cpu); err != nil {
		rt.callError(L, c.m, a.Fn, err)
	}
	return 0
}

// callerDuplicateHandle is p:duplicate_handle(h, access [, target]): a new
// handle to the object h names, in target's table (default p's), granting
// exactly access (kernel.Process.DuplicateHandle).
func (rt *Runtime) callerDuplicateHandle(L *lua.LState, c *caller, a luavm.Args) int {
	a.MaxArgs(3, "handle, access, target")
	h := a.Service(1, "handle", 8)
	access := uint32(a.Service(2, "access", 4))
	target := c.proc
	if a.Get(3) != lua.LNil {
		t, ok := toCaller(a.Get(3))
		if !ok || t.kind != kindProcess {
			a.Errorf(3, "target", "expected a process from m:process{...}, got %s", luavm.TypeName(a.Get(3)))
		}
		if t.m != c.m {
			a.Errorf(3, "target", "the process belongs to another machine")
		}
		target = t.proc
	}
	rt.mustRun(L, c.m, a.Fn)
	dup, st := c.proc.DuplicateHandle(h, target, access)
	if st != kernel.StatusSuccess {
		a.Errorf(1, "handle", "%s has no handle %#x (%s)", c.label(), h, st.Name())
	}
	luavm.PushResult(L, dup)
	return 1
}

// callerOpenProcess is q:open_process(p, access): a handle in q's table.
func (rt *Runtime) callerOpenProcess(L *lua.LState, c *caller, a luavm.Args) int {
	a.MaxArgs(2, "process, access")
	target, ok := toCaller(a.Get(1))
	if !ok {
		a.Errorf(1, "process", "expected a process from m:process{...}, got %s", luavm.TypeName(a.Get(1)))
	}
	if target.m != c.m {
		a.Errorf(1, "process", "the process belongs to another machine")
	}
	access := nt.PROCESS_ALL_ACCESS
	if a.Get(2) != lua.LNil {
		access = uint32(a.Service(2, "access", 4))
	}
	rt.mustRun(L, c.m, a.Fn)
	luavm.PushResult(L, c.proc.OpenProcess(target.proc, access))
	return 1
}
