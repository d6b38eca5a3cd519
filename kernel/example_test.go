package kernel_test

import (
	"encoding/binary"
	"fmt"

	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// The Windows 8 inclusive-end defect: an interrupt at exactly RangeLimit
// increments the ULONG just past an exact-fit buffer. When the buffer
// ends a page, that write faults at profile IRQL.
func Example_inclusiveEnd() {
	m, _ := kernel.NewMachine(kernel.Config{Version: kernel.MustVersion("6.2"), Arch: kernel.X64, CPUs: 1,
		HALs: kernel.StandardTestHALs(nt.VendorIntel)})
	p := m.NewProcess("app", kernel.Token{})
	t := p.MainThread()
	hv, _ := p.Alloc(8, kernel.ProtReadWrite)
	buf, _ := p.Alloc(0x1000, kernel.ProtReadWrite) // ends exactly at its guard page
	st, _ := t.NtCreateProfile(kernel.CreateArgs{ProfileHandle: hv, Process: ^uint64(0), ProfileBase: 0x400000,
		ProfileSize: 0x1000, BucketSize: 2, Buffer: buf, BufferSize: 0x1000, Affinity: ^uint64(0)})
	fmt.Println("create:", st.Name())
	var h [8]byte
	_ = p.Read(hv, h[:])
	st, _ = t.NtStartProfile(binary.LittleEndian.Uint64(h[:]))
	fmt.Println("start:", st.Name())
	err := m.ProfileInterrupt(kernel.Interrupt{CPU: 0, Source: nt.ProfileTime, IP: 0x401000, Thread: t})
	fmt.Println(err)
	// Output:
	// create: STATUS_SUCCESS
	// start: STATUS_SUCCESS
	// bug check 0x0A IRQL_NOT_LESS_OR_EQUAL (0xFFFFC00000001000, 0xF, 0x1, 0xFFFFF80000102A4C)
}
