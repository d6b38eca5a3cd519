package luart

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// machineInterrupt is m:interrupt{ cpu, source, ip, process, mode, isr,
// dpc }: the HAL's call of KeProfileInterruptWithSource on that processor
// with a trap frame whose instruction pointer is ip, while the main thread
// of process runs there (nil: the idle context). It returns true, or
// false and the bug check's table when the interrupt bug-checked.
func (rt *Runtime) machineInterrupt(L *lua.LState) int {
	const fn = "m:interrupt"
	m := checkMachine(L, fn)
	f := luavm.CheckFields(L, fn, L.Get(2), "cpu", "source", "ip", "process", "mode", "isr", "dpc")
	if !f.Has("ip") {
		f.Errorf("ip", "is required: the interrupted instruction's address, e.g. m:interrupt{ ip = 0x401000 }")
	}
	in := kernel.Interrupt{
		CPU:          f.Int("cpu", 0, 0, m.km.CPUCount()-1),
		Source:       nt.Source(f.Service("source", 4, uint64(nt.ProfileTime))),
		IP:           f.Service("ip", m.km.Arch().PointerSize(), 0),
		ExecutingISR: f.Bool("isr", false),
		ExecutingDPC: f.Bool("dpc", false),
	}
	mode := "kernel"
	if pv := f.Get("process"); pv != lua.LNil {
		c, ok := toCaller(pv)
		if !ok {
			f.Errorf("process", "expected a process from m:process{...} (or nil for the idle context), got %s", luavm.TypeName(pv))
		}
		if c.m != m {
			f.Errorf("process", "the process belongs to another machine")
		}
		in.Thread = c.actor()
		if c.kind != kindKernel {
			mode = "user"
		}
	}
	if f.Enum("mode", mode, "user", "kernel") == "kernel" {
		in.Mode = kernel.KernelMode
	}
	rt.mustRun(L, m, fn)
	if err := m.km.ProfileInterrupt(in); err != nil {
		if bc := rt.callError(L, m, fn, err); bc != nil {
			L.Push(lua.LFalse)
			L.Push(bugCheckTable(L, bc))
			return 2
		}
	}
	L.Push(lua.LTrue)
	return 1
}
