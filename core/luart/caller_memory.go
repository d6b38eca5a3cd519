package luart

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/kernel"
)

// maxReadCount bounds read_u32s, so that a typo cannot allocate gigabytes.
const maxReadCount = 1 << 24

// maxRegion bounds the size of alloc, alloc_at and protect: the model keeps
// metadata per page, so a terabyte-sized typo would take minutes and
// gigabytes; 4 GB is far beyond what any profiling scenario needs.
const maxRegion = 1 << 32

// maxMapped bounds what one machine's processes and kernel callers have
// allocated at once (alloc and alloc_at, less free): each mapped GiB costs
// the model about 16 MB and a second and a half, so without a bound a loop
// of 4 GB allocations would exhaust the host.
const maxMapped = 8 << 30

// region is an allocation the bindings made, by its owner and address.
type region struct {
	proc *kernel.Process
	addr uint64
}

// reserve checks that size more bytes fit in the machine's allocations, raising a
// Lua error (before allocating) when they would exceed maxMapped.
func (m *machine) reserve(L *lua.LState, fn string, size uint64) {
	if m.mapped+size > maxMapped {
		L.RaiseError("%s(%#x): the machine's allocations would reach %s, over proflab's limit of %s per machine (free regions with x:free)",
			fn, size, luavm.FormatBytes(int64(m.mapped+size)), luavm.FormatBytes(maxMapped))
	}
}

// mappedAt records a region made; freed forgets it.
func (m *machine) mappedAt(p *kernel.Process, addr, size uint64) {
	if m.regions == nil {
		m.regions = map[region]uint64{}
	}
	m.regions[region{p, addr}] += size
	m.mapped += size
}

func (m *machine) freed(p *kernel.Process, addr uint64) {
	k := region{p, addr}
	m.mapped -= m.regions[k]
	delete(m.regions, k)
}

// address reads an address argument: a number or u64, not negative.
func address(a luavm.Args, i int) uint64 {
	return a.Uint(i, "address", 0, math.MaxUint64)
}

// prot reads a protection argument ("rw" by default).
func prot(a luavm.Args, i int) kernel.Prot {
	s := a.OptString(i, "prot", "rw")
	p, err := kernel.ParseProt(s)
	if err != nil {
		a.Errorf(i, "prot", "%v", err)
	}
	return p
}

// callerAlloc is x:alloc(size, prot) → address: whole pages with a guard
// page after them (system space for a kernel caller).
func (rt *Runtime) callerAlloc(L *lua.LState, c *caller, a luavm.Args) int {
	a.MaxArgs(2, "size, prot")
	size := a.Uint(1, "size", 1, maxRegion)
	p := prot(a, 2)
	rt.mustRun(L, c.m, a.Fn)
	c.m.reserve(L, a.Fn, size)
	addr, err := c.proc.Alloc(size, p)
	if err != nil {
		L.RaiseError("%s(%#x): %v", a.Fn, size, err)
	}
	c.m.mappedAt(c.proc, addr, size)
	luavm.PushResult(L, addr)
	return 1
}

// callerAllocAt is x:alloc_at(address, size, prot) → address.
func (rt *Runtime) callerAllocAt(L *lua.LState, c *caller, a luavm.Args) int {
	a.MaxArgs(3, "address, size, prot")
	addr := address(a, 1)
	size := a.Uint(2, "size", 1, maxRegion)
	p := prot(a, 3)
	rt.mustRun(L, c.m, a.Fn)
	c.m.reserve(L, a.Fn, size)
	got, err := c.proc.AllocAt(addr, size, p)
	if err != nil {
		L.RaiseError("%s(%s, %#x): %v", a.Fn, luavm.U64(addr), size, err)
	}
	c.m.mappedAt(c.proc, got, size)
	luavm.PushResult(L, got)
	return 1
}

// callerProtect is x:protect(address, size, prot).
func (rt *Runtime) callerProtect(L *lua.LState, c *caller, a luavm.Args) int {
	a.MaxArgs(3, "address, size, prot")
	addr := address(a, 1)
	size := a.Uint(2, "size", 1, maxRegion)
	if a.Get(3) == lua.LNil {
		a.Errorf(3, "prot", `expected "rw", "r", "rx" or "none"`)
	}
	p := prot(a, 3)
	rt.mustRun(L, c.m, a.Fn)
	if err := c.proc.Protect(addr, size, p); err != nil {
		L.RaiseError("%s(%s, %#x): %v", a.Fn, luavm.U64(addr), size, err)
	}
	return 0
}

// callerFree is x:free(address): frees the allocation that starts there.
func (rt *Runtime) callerFree(L *lua.LState, c *caller, a luavm.Args) int {
	a.MaxArgs(1, "address")
	addr := address(a, 1)
	rt.mustRun(L, c.m, a.Fn)
	if err := c.proc.Free(addr); err != nil {
		L.RaiseError("%s(%s): %v", a.Fn, luavm.U64(addr), err)
	}
	c.m.freed(c.proc, addr)
	return 0
}

// read reads n bytes as the caller sees memory.
func (c *caller) read(addr uint64, buf []byte) error {
	if c.kind == kindProcess {
		return c.proc.Read(addr, buf)
	}
	return c.thread.Read(addr, buf)
}

// write stores bytes as the caller sees memory.
func (c *caller) write(addr uint64, data []byte) error {
	if c.kind == kindProcess {
		return c.proc.Write(addr, data)
	}
	return c.thread.Write(addr, data)
}

// readFunc is x:read_u8/u16/u32/u64(address) → value.
func readFunc(width int) func(*Runtime, *lua.LState, *caller, luavm.Args) int {
	return func(rt *Runtime, L *lua.LState, c *caller, a luavm.Args) int {
		a.MaxArgs(1, "address")
		addr := address(a, 1)
		buf := make([]byte, 8)
		if err := c.read(addr, buf[:width]); err != nil {
			L.RaiseError("%s(%s): %v", a.Fn, luavm.U64(addr), err)
		}
		luavm.PushResult(L, binary.LittleEndian.Uint64(buf))
		return 1
	}
}

// writeFunc is x:write_u8/u16/u32/u64(address, value).
func writeFunc(width int) func(*Runtime, *lua.LState, *caller, luavm.Args) int {
	return func(rt *Runtime, L *lua.LState, c *caller, a luavm.Args) int {
		a.MaxArgs(2, "address, value")
		addr := address(a, 1)
		v, err := luavm.DataValue(a.Get(2), width)
		if err != nil {
			a.Errorf(2, "value", "%s", err)
		}
		rt.mustRun(L, c.m, a.Fn)
		buf := make([]byte, 8)
		binary.LittleEndian.PutUint64(buf, v)
		if err := c.write(addr, buf[:width]); err != nil {
			L.RaiseError("%s(%s, %s): %v", a.Fn, luavm.U64(addr), luavm.U64(v), err)
		}
		return 0
	}
}

// callerReadU32s is x:read_u32s(address, count) → array of ULONGs (index
// 1 is the ULONG at address).
func (rt *Runtime) callerReadU32s(L *lua.LState, c *caller, a luavm.Args) int {
	a.MaxArgs(2, "address, count")
	addr := address(a, 1)
	n := a.Uint(2, "count", 0, maxReadCount)
	buf := make([]byte, 4*n)
	if err := c.read(addr, buf); err != nil {
		L.RaiseError("%s(%s, %d): %v", a.Fn, luavm.U64(addr), n, err)
	}
	t := L.CreateTable(int(n), 0)
	for i := uint64(0); i < n; i++ {
		t.Append(lua.LNumber(binary.LittleEndian.Uint32(buf[4*i:])))
	}
	L.Push(t)
	return 1
}
