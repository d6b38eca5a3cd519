package kernel

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// PageSize is the size of a page.
const PageSize = 0x1000

const pageShift = 12

// Prot is a page protection.
type Prot uint8

// Page protections.
const (
	ProtNone Prot = iota
	ProtRead
	ProtReadWrite
	ProtReadExecute
)

// ParseProt reads "none", "r", "rw" or "rx".
func ParseProt(s string) (Prot, error) {
	switch s {
	case "none":
		return ProtNone, nil
	case "r":
		return ProtRead, nil
	case "rw", "":
		return ProtReadWrite, nil
	case "rx":
		return ProtReadExecute, nil
	}
	return 0, fmt.Errorf("unknown protection %q: use \"rw\", \"r\", \"rx\" or \"none\"", s)
}

func (p Prot) readable() bool { return p != ProtNone }
func (p Prot) writable() bool { return p == ProtReadWrite }

// frame is one physical page. Its bytes are allocated on first write, so
// a large reserved buffer costs a pointer per page until it is touched.
// Every virtual mapping of the page (the user's view, a locked buffer's
// system view) points at the same frame.
type frame struct {
	b *[PageSize]byte
}

func (f *frame) bytes() *[PageSize]byte {
	if f.b == nil {
		f.b = new([PageSize]byte)
	}
	return f.b
}

// pte is a page-table entry.
type pte struct {
	f    *frame
	prot Prot
}

// pageTable maps virtual page numbers to entries.
type pageTable map[uint64]pte

// region is one allocation: a base and a page count.
type region struct {
	base  uint64
	pages uint64
}

// addressSpace is a range of virtual memory with a bump allocator that
// leaves an unmapped guard page after each allocation.
type addressSpace struct {
	pt     pageTable
	allocs map[uint64]region
	cursor uint64
	start  uint64
	limit  uint64
}

func newAddressSpace(start, limit uint64) *addressSpace {
	return &addressSpace{pt: pageTable{}, allocs: map[uint64]region{}, cursor: start, start: start, limit: limit}
}

func pagesFor(size uint64) uint64 { return (size + PageSize - 1) >> pageShift }

// MaxRegion is the largest allocation or protection change the model
// accepts at once: page tables cost memory per page, and no profiling
// experiment needs more than 4 GB in one region.
const MaxRegion = 1 << 32

func checkRegion(size uint64) error {
	if size == 0 {
		return fmt.Errorf("size must be at least 1 byte")
	}
	if size > MaxRegion {
		return fmt.Errorf("size 0x%X is above the model's limit of 4 GB per region", size)
	}
	return nil
}

// free reports whether pages [vpn, vpn+n) are all unmapped.
func (as *addressSpace) rangeFree(vpn, n uint64) bool {
	for i := uint64(0); i < n; i++ {
		if _, ok := as.pt[vpn+i]; ok {
			return false
		}
	}
	return true
}

// alloc maps size bytes (rounded up to pages) at the next free address
// with a free guard page after it.
func (as *addressSpace) alloc(size uint64, prot Prot) (uint64, error) {
	if err := checkRegion(size); err != nil {
		return 0, err
	}
	n := pagesFor(size)
	for addr := as.cursor; addr+(n+1)*PageSize <= as.limit && addr >= as.start; addr += PageSize {
		if as.rangeFree(addr>>pageShift, n+1) {
			as.mapNew(addr, n, prot)
			as.cursor = addr + (n+1)*PageSize
			return addr, nil
		}
	}
	return 0, fmt.Errorf("out of address space for %d bytes", size)
}

// allocAt maps size bytes at a page-aligned address whose pages are free.
func (as *addressSpace) allocAt(addr, size uint64, prot Prot) error {
	if err := checkRegion(size); err != nil {
		return err
	}
	if addr%PageSize != 0 {
		return fmt.Errorf("address 0x%X is not page-aligned", addr)
	}
	n := pagesFor(size)
	if addr < as.start || addr+n*PageSize > as.limit || addr+n*PageSize < addr {
		return fmt.Errorf("range 0x%X+0x%X is outside the allocatable range 0x%X-0x%X", addr, size, as.start, as.limit)
	}
	if !as.rangeFree(addr>>pageShift, n) {
		return fmt.Errorf("range 0x%X+0x%X overlaps mapped pages", addr, size)
	}
	as.mapNew(addr, n, prot)
	return nil
}

func (as *addressSpace) mapNew(addr, n uint64, prot Prot) {
	vpn := addr >> pageShift
	for i := uint64(0); i < n; i++ {
		as.pt[vpn+i] = pte{f: &frame{}, prot: prot}
	}
	as.allocs[addr] = region{base: addr, pages: n}
}

// protect changes the protection of mapped pages.
func (as *addressSpace) protect(addr, size uint64, prot Prot) error {
	if err := checkRegion(size); err != nil {
		return err
	}
	first := addr >> pageShift
	last := (addr + size - 1) >> pageShift
	if last < first {
		return fmt.Errorf("range 0x%X+0x%X wraps", addr, size)
	}
	for v := first; v <= last; v++ {
		if _, ok := as.pt[v]; !ok {
			return fmt.Errorf("page 0x%X is not mapped", v<<pageShift)
		}
	}
	for v := first; v <= last; v++ {
		e := as.pt[v]
		e.prot = prot
		as.pt[v] = e
	}
	return nil
}

// release unmaps the allocation that starts at addr.
func (as *addressSpace) release(addr uint64) error {
	r, ok := as.allocs[addr]
	if !ok {
		return fmt.Errorf("no allocation starts at 0x%X", addr)
	}
	for i := uint64(0); i < r.pages; i++ {
		delete(as.pt, (addr>>pageShift)+i)
	}
	delete(as.allocs, addr)
	return nil
}

// fault describes a failed access.
type fault struct {
	addr  uint64
	write bool
}

func (f *fault) Error() string {
	kind := "read"
	if f.write {
		kind = "write"
	}
	return fmt.Sprintf("%s of unmapped or protected address 0x%X", kind, f.addr)
}

// Memory is the machine's memory as seen from one address space: the
// process's user pages below the system base and the shared system space
// above it.
type memView struct {
	m    *Machine
	user *addressSpace // nil for the system process
	mode Mode          // UserMode cannot touch system space
}

func (v memView) lookup(addr uint64) (pte, bool) {
	if addr >= v.m.lay.systemBase {
		if v.mode == UserMode {
			return pte{}, false
		}
		e, ok := v.m.sysPT[addr>>pageShift]
		return e, ok
	}
	if v.user == nil {
		return pte{}, false
	}
	e, ok := v.user.pt[addr>>pageShift]
	return e, ok
}

// access checks that [addr, addr+n) can be read (or written) and calls fn
// for each page piece.
func (v memView) access(addr uint64, n int, write bool, fn func(f *frame, off uint64, lo, hi int)) error {
	mask := v.m.lay.ptrMask
	if addr&mask != addr || (n > 0 && (addr+uint64(n)-1)&mask < addr) {
		return &fault{addr: addr, write: write}
	}
	// check every page first, so a failing access changes nothing
	for done := 0; done < n; {
		a := addr + uint64(done)
		e, ok := v.lookup(a)
		if !ok || !e.prot.readable() || (write && !e.prot.writable()) {
			return &fault{addr: a, write: write}
		}
		done += int(PageSize - a%PageSize)
	}
	for done := 0; done < n; {
		a := addr + uint64(done)
		e, _ := v.lookup(a)
		off := a % PageSize
		chunk := int(PageSize - off)
		if chunk > n-done {
			chunk = n - done
		}
		fn(e.f, off, done, done+chunk)
		done += chunk
	}
	return nil
}

func (v memView) read(addr uint64, buf []byte) error {
	return v.access(addr, len(buf), false, func(f *frame, off uint64, lo, hi int) {
		if f.b == nil {
			clear(buf[lo:hi])
			return
		}
		copy(buf[lo:hi], f.b[off:])
	})
}

// present calls fn with each piece of [addr, addr+n) on a page that was
// written at least once, in ascending order: lo is the piece's offset
// from addr, b its bytes (the page's own: fn must neither keep nor
// change them). A page never written reads as zeros: it is skipped, and
// not allocated. Like read, it fails, calling nothing, when a page
// cannot be read.
func (v memView) present(addr uint64, n int, fn func(lo int, b []byte)) error {
	return v.access(addr, n, false, func(f *frame, off uint64, lo, hi int) {
		if f.b != nil {
			fn(lo, f.b[off:off+uint64(hi-lo)])
		}
	})
}

func (v memView) write(addr uint64, data []byte) error {
	return v.access(addr, len(data), true, func(f *frame, off uint64, lo, hi int) {
		copy(f.bytes()[off:], data[lo:hi])
	})
}

func (v memView) writeU32(addr uint64, x uint32) error {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], x)
	return v.write(addr, b[:])
}

func (v memView) writeU64(addr uint64, x uint64) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], x)
	return v.write(addr, b[:])
}

// writePtr writes a pointer-sized value.
func (v memView) writePtr(addr uint64, x uint64) error {
	if v.m.arch == X64 {
		return v.writeU64(addr, x)
	}
	return v.writeU32(addr, uint32(x))
}

// probeForWrite is ProbeForWrite for a user-mode caller: alignment, then
// the range against MmUserProbeAddress, then a write touch of every page.
func (v memView) probeForWrite(addr, length, align uint64) Status {
	if st := v.probeForRead(addr, length, align); st != StatusSuccess || length == 0 {
		return st
	}
	for a, end := addr&^(PageSize-1), addr+length; a < end; a += PageSize {
		e, ok := v.lookup(a)
		if !ok || !e.prot.writable() {
			return StatusAccessViolation
		}
	}
	return StatusSuccess
}

// probeForRead is ProbeForRead: alignment and range only, no touch.
func (v memView) probeForRead(addr, length, align uint64) Status {
	if length == 0 {
		return StatusSuccess
	}
	if addr&(align-1) != 0 {
		return StatusDatatypeMisalignment
	}
	end := addr + length
	if end < addr || end > v.m.lay.userProbe || end&v.m.lay.ptrMask != end {
		return StatusAccessViolation
	}
	return StatusSuccess
}

// probeVariable is ProbeForWriteHandle/ProbeForWriteUlong: the variable
// must start in user space (an address at or above MmUserProbeAddress is
// replaced by MmUserProbeAddress, which faults) and its n bytes must be
// readable and writable. No alignment is demanded.
func (v memView) probeVariable(addr uint64, n int) Status {
	if addr >= v.m.lay.userProbe {
		return StatusAccessViolation
	}
	var b [8]byte
	if v.read(addr, b[:n]) != nil || v.write(addr, b[:n]) != nil {
		return StatusAccessViolation
	}
	return StatusSuccess
}

// systemMappings places locked buffers in system space, each followed by
// an unmapped guard page, reusing freed ranges of the same size.
type systemMappings struct {
	cursor uint64
	limit  uint64
	free   map[uint64][]uint64 // pages → free bases
}

func (m *Machine) mapSystem(frames []*frame) (uint64, bool) {
	n := uint64(len(frames))
	var base uint64
	if fl := m.maps.free[n]; len(fl) > 0 {
		base = fl[len(fl)-1]
		m.maps.free[n] = fl[:len(fl)-1]
	} else {
		if m.maps.cursor+(n+1)*PageSize > m.maps.limit {
			return 0, false
		}
		base = m.maps.cursor
		m.maps.cursor += (n + 1) * PageSize
	}
	for i, f := range frames {
		m.sysPT[(base>>pageShift)+uint64(i)] = pte{f: f, prot: ProtReadWrite}
	}
	return base, true
}

func (m *Machine) unmapSystem(base uint64, n uint64) {
	for i := uint64(0); i < n; i++ {
		delete(m.sysPT, (base>>pageShift)+i)
	}
	m.maps.free[n] = append(m.maps.free[n], base)
}

// pool is the non-paged pool: cache-aligned allocations in system space.
type pool struct {
	cursor      uint64
	limit       uint64
	outstanding map[uint64]uint64 // address → size
	failures    int               // injected: the next n allocations fail
}

// poolAlloc allocates size zeroed bytes, or fails when a failure was
// injected or the pool is exhausted.
func (m *Machine) poolAlloc(size uint64) (uint64, bool) {
	if m.pool.failures > 0 {
		m.pool.failures--
		return 0, false
	}
	rounded := (size + 63) &^ 63 // cache-aligned
	if m.pool.cursor+rounded > m.pool.limit {
		return 0, false
	}
	addr := m.pool.cursor
	m.pool.cursor += rounded
	for a := addr &^ (PageSize - 1); a < addr+size; a += PageSize {
		if _, ok := m.sysPT[a>>pageShift]; !ok {
			m.sysPT[a>>pageShift] = pte{f: &frame{}, prot: ProtReadWrite}
		}
	}
	m.pool.outstanding[addr] = size
	return addr, true
}

func (m *Machine) poolFree(addr uint64) {
	if size, ok := m.pool.outstanding[addr]; ok {
		// zero on free so a later reader cannot mistake stale bytes for a live object
		_ = m.sysView().write(addr, make([]byte, size))
		delete(m.pool.outstanding, addr)
	}
}

// PoolAllocations returns the addresses of the pool allocations that are
// outstanding, in ascending order (for leak checks).
func (m *Machine) PoolAllocations() []uint64 {
	out := make([]uint64, 0, len(m.pool.outstanding))
	for a := range m.pool.outstanding {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
