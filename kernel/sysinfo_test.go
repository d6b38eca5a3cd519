package kernel

import (
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

// TestProcessorPerformance covers items 86–88.
func TestProcessorPerformance(t *testing.T) {
	tests := []struct {
		name       string
		version    string
		class      uint32
		length     uint32
		want       Status
		wantRetLen uint32
	}{
		{"86 one byte over", "10.0.19041", nt.SystemProcessorPerformanceInformation, 0x30*2 + 1, StatusInfoLengthMismatch, 0x30 * 4},
		{"86 zero length", "10.0.19041", nt.SystemProcessorPerformanceInformation, 0, StatusInfoLengthMismatch, 0x30 * 4},
		{"87 truncated to two", "10.0.19041", nt.SystemProcessorPerformanceInformation, 0x30 * 2, StatusSuccess, 0x30 * 2},
		{"87 exact", "10.0.19041", nt.SystemProcessorPerformanceInformation, 0x30 * 4, StatusSuccess, 0x30 * 4},
		{"87 larger than needed", "10.0.19041", nt.SystemProcessorPerformanceInformation, 0x30 * 8, StatusSuccess, 0x30 * 4},
		{"88 Ex elements", "6.2", nt.SystemProcessorPerformanceInformationEx, 0x48 * 3, StatusSuccess, 0x48 * 3},
		{"88 Ex mismatch", "6.2", nt.SystemProcessorPerformanceInformationEx, 0x48*2 + 8, StatusInfoLengthMismatch, 0x48 * 4},
		{"Ex before 6.2", "6.1", nt.SystemProcessorPerformanceInformationEx, 0x48 * 4, StatusInvalidInfoClass, 0xEEEEEEEE},
		{"unknown class", "10.0.19041", 0x99, 0x30, StatusInvalidInfoClass, 0xEEEEEEEE},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.version, "")
			buf := e.alloc(e.p, 0x1000)
			rl := e.alloc(e.p, 4)
			_ = e.p.Write(rl, []byte{0xEE, 0xEE, 0xEE, 0xEE})
			e.m.AccountTime(0, CPUTimes{Idle: 3 * maxTimeIncrement, User: 2*maxTimeIncrement + 5})
			st, err := e.th.NtQuerySystemInformation(tc.class, buf, tc.length, rl)
			e.mustStatus(tc.want, st, err)
			if got := e.readU32s(e.p, rl, 1)[0]; got != tc.wantRetLen {
				t.Fatalf("ReturnLength 0x%X, want 0x%X", got, tc.wantRetLen)
			}
			if st == StatusSuccess {
				w := e.readU32s(e.p, buf, 8)
				if w[0] != 3*maxTimeIncrement || w[2] != 3*maxTimeIncrement || w[4] != 2*maxTimeIncrement {
					t.Fatalf("times %v: idle, kernel (including idle) and user in whole ticks", w)
				}
			}
		})
	}
	t.Run("probe failures", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		buf := e.alloc(e.p, 0x1000)
		st, _ := e.th.NtQuerySystemInformation(nt.SystemProcessorPerformanceInformation, buf+2, 0x30, 0)
		e.mustStatus(StatusDatatypeMisalignment, st, nil)
		st, _ = e.th.NtQuerySystemInformation(nt.SystemProcessorPerformanceInformation, kernelBase, 0x30, 0)
		e.mustStatus(StatusAccessViolation, st, nil)
	})
}

// TestPerformanceTraceClass covers items 104 and the time-profile sub-class.
func TestPerformanceTraceClass(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	buf := e.alloc(e.p, 0x100)
	for _, tc := range []struct {
		name   string
		class  uint32
		length uint32
		want   Status
	}{
		{"104 buffer shorter than 4", 3, 3, StatusInvalidParameter},
		{"104 unknown sub-class", 0x40, 8, StatusNotImplemented},
		{"104 set-only sub-class queried", nt.EventTraceProfileCounterListInformation, 0x18, StatusNotImplemented},
		{"time profile", nt.EventTraceTimeProfileInformation, 8, StatusSuccess},
		{"time profile wrong size", nt.EventTraceTimeProfileInformation, 12, StatusInfoLengthMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = e.p.Write(buf, []byte{byte(tc.class), 0, 0, 0, 0, 0, 0, 0})
			st, err := e.th.NtQuerySystemInformation(nt.SystemPerformanceTraceInformation, buf, tc.length, 0)
			e.mustStatus(tc.want, st, err)
			if st == StatusSuccess && e.readU32s(e.p, buf+4, 1)[0] != 39063 {
				t.Fatal("time profile interval")
			}
		})
	}
	if st, _ := newEnv(t, "5.2", "").th.NtQuerySystemInformation(nt.SystemPerformanceTraceInformation, 0, 0, 0); st != StatusInvalidInfoClass {
		t.Fatalf("5.2: %v", st)
	}
}

// TestControlArea covers items 89–94.
func TestControlArea(t *testing.T) {
	type call struct {
		allocate  byte
		want      Status
		wantFirst bool // the output is the first area's address
		wantNull  bool
	}
	tests := []struct {
		name   string
		opts   []envOpt
		inject int
		calls  []call
	}{
		{"91 allocate twice", nil, 0, []call{{1, StatusSuccess, false, false}, {1, StatusAddressAlreadyExists, true, false}}},
		{"92 free without an area", nil, 0, []call{{0, nt.StatusMemoryNotAllocated, false, true}}},
		{"free after allocate", nil, 0, []call{{1, StatusSuccess, false, false}, {0, StatusSuccess, false, true}, {0, nt.StatusMemoryNotAllocated, false, true}}},
		{"90 AMD processor", []envOpt{withVendor(nt.VendorAMD)}, 0, []call{{1, StatusNotSupported, false, true}}},
		{"90 Intel without PEBS", []envOpt{withPEBS(false)}, 0, []call{{1, StatusNotSupported, false, true}}},
		{"93 allocation fails", nil, 1, []call{{1, StatusInsufficientResources, false, true}}},
	}
	for _, tc := range tests {
		for _, arch := range []string{"x86", "x64"} {
			t.Run(tc.name+" "+arch, func(t *testing.T) {
				e := newEnv(t, "10.0.19041", arch, tc.opts...)
				k, _ := e.m.NewKernelCaller(1)
				ps := uint64(e.m.arch.PointerSize())
				buf, _ := k.Process().Alloc(0x100, ProtReadWrite)
				pool := len(e.m.PoolAllocations())
				e.m.InjectPoolFailures(tc.inject)
				var first uint64
				for i, c := range tc.calls {
					_ = k.Write(buf, make([]byte, 2*ps))
					_ = k.Write(buf, []byte{0xAA, 0xAA})
					_ = k.Write(buf+ps, []byte{c.allocate})
					st, err := k.NtSetSystemInformation(nt.SystemProcessorProfileControlArea, buf, uint32(2*ps))
					e.mustStatus(c.want, st, err)
					var out [8]byte
					_ = k.Read(buf, out[:ps])
					addr := uint64(0)
					for j := uint64(0); j < ps; j++ {
						addr |= uint64(out[j]) << (8 * j)
					}
					if i == 0 && st == StatusSuccess {
						first = addr
						if addr == 0 || addr != e.m.ControlArea(1) || addr%64 != 0 {
							t.Fatalf("area 0x%X, processor has 0x%X", addr, e.m.ControlArea(1))
						}
						area := make([]byte, controlAreaSize)
						_ = e.m.ReadSystem(addr, area)
						for _, b := range area {
							if b != 0 {
								t.Fatal("94 the area is not zero-filled")
							}
						}
						if e.m.pool.outstanding[addr] != controlAreaSize {
							t.Fatalf("94 area size %d", e.m.pool.outstanding[addr])
						}
					}
					if c.wantNull && addr != 0 {
						t.Fatalf("call %d: output 0x%X, want NULL", i, addr)
					}
					if c.wantFirst && addr != first {
						t.Fatalf("call %d: output 0x%X, want the first area 0x%X", i, addr, first)
					}
				}
				last := tc.calls[len(tc.calls)-1]
				leaked := len(e.m.PoolAllocations()) - pool
				if (last.want == StatusSuccess && last.allocate == 1) || (len(tc.calls) > 1 && tc.calls[1].want == StatusAddressAlreadyExists) {
					leaked--
				}
				if leaked != 0 {
					t.Fatalf("90 pool allocations leaked: %d", leaked)
				}
			})
		}
	}
	t.Run("89 user mode is denied", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		buf := e.alloc(e.p, 0x10)
		st, err := e.th.NtSetSystemInformation(nt.SystemProcessorProfileControlArea, buf, 0x10)
		e.mustStatus(StatusAccessDenied, st, err)
	})
	t.Run("wrong length", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		k, _ := e.m.NewKernelCaller(0)
		buf, _ := k.Process().Alloc(0x100, ProtReadWrite)
		st, err := k.NtSetSystemInformation(nt.SystemProcessorProfileControlArea, buf, 0x60)
		e.mustStatus(StatusInfoLengthMismatch, st, err)
	})
	t.Run("before 6.2 the class is unknown", func(t *testing.T) {
		e := newEnv(t, "6.1", "")
		k, _ := e.m.NewKernelCaller(0)
		st, err := k.NtSetSystemInformation(nt.SystemProcessorProfileControlArea, 0, 0x10)
		e.mustStatus(StatusInvalidInfoClass, st, err)
	})
	t.Run("per processor", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		k, _ := e.m.NewKernelCaller(0)
		buf, _ := k.Process().Alloc(0x100, ProtReadWrite)
		for _, cpu := range []int{0, 2} {
			_ = k.RunOn(cpu)
			_ = k.Write(buf+8, []byte{1})
			st, err := k.NtSetSystemInformation(nt.SystemProcessorProfileControlArea, buf, 0x10)
			e.mustStatus(StatusSuccess, st, err)
		}
		if e.m.ControlArea(0) == 0 || e.m.ControlArea(2) == 0 || e.m.ControlArea(1) != 0 || e.m.ControlArea(0) == e.m.ControlArea(2) {
			t.Fatal("areas are not per processor")
		}
	})
}
