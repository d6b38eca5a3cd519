package kernel

import (
	"encoding/binary"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

const (
	userBase   = 0x400000
	kernelBase = 0xFFFFF80000000000
)

// TestCreateValidation covers items 1–22 of docs/reference/conformance.md:
// NtCreateProfile argument validation and its order.
func TestCreateValidation(t *testing.T) {
	const all = ^uint64(0)
	cur := all // NtCurrentProcess at 64 bits; truncated on x86 by the service table
	tests := []struct {
		name    string
		version string
		arch    string
		args    CreateArgs
		prep    func(e *env, a *CreateArgs)
		want    Status
	}{
		{"01 BufferSize 0", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, Affinity: all}, nil, StatusInvalidParameter7},
		{"01 BufferSize 0 global unprivileged", "6.1", "", CreateArgs{ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, Affinity: all}, nil, StatusInvalidParameter7},
		{"01 BufferSize 0 x86 4.0", "4.0", "x86", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4}, nil, StatusInvalidParameter7},
		{"02 BufferSize 0 before bucket check", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 40, Affinity: all}, nil, StatusInvalidParameter7},
		{"03 BucketSize 1", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 1, BufferSize: 0x1000, Affinity: all}, nil, StatusInvalidParameter},
		{"04 BucketSize 0x20", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 0x20, BufferSize: 0x1000, Affinity: all}, nil, StatusInvalidParameter},
		{"05 BucketSize 2", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 2, BufferSize: 0x100, Affinity: all}, nil, StatusSuccess},
		{"06 BucketSize 0x1F", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x80000000, BucketSize: 0x1F, BufferSize: 4, Affinity: all}, nil, StatusSuccess},
		{"07 x64 BucketSize 0", "10.0.19041", "x64", CreateArgs{Process: cur, ProfileBase: 0x1000, ProfileSize: 0x100, BucketSize: 0, BufferSize: 0x100, Affinity: all}, nil, StatusInvalidParameter},
		{"08 x86 segment default bucket", "10.0.19041", "x86", CreateArgs{Process: cur, ProfileBase: 0x1234, ProfileSize: 0x10000, BucketSize: 0, BufferSize: 0x100, Affinity: all}, nil, StatusSuccess},
		{"09 x86 segment global non-zero segment", "10.0.19041", "x86", CreateArgs{ProfileBase: 0x1234, ProfileSize: 0x10000, BucketSize: 0, BufferSize: 0x100, Affinity: all}, nil, StatusInvalidParameter},
		{"10 x86 BucketSize 0 base above 0xFFFF", "10.0.19041", "x86", CreateArgs{Process: cur, ProfileBase: 0x10000, ProfileSize: 0x100, BucketSize: 0, BufferSize: 0x100, Affinity: all}, nil, StatusInvalidParameter},
		{"10 x86 segment with BufferSize 3", "10.0.19041", "x86", CreateArgs{Process: cur, ProfileBase: 0xFFFF, ProfileSize: 0x100, BucketSize: 0, BufferSize: 3, Affinity: all}, nil, StatusInvalidParameter7},
		{"10 x64 same call has no segment path", "10.0.19041", "x64", CreateArgs{Process: cur, ProfileBase: 0xFFFF, ProfileSize: 0x100, BucketSize: 0, BufferSize: 3, Affinity: all}, nil, StatusInvalidParameter},
		{"11 1703 one byte too many", "10.0.15063", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x41, BucketSize: 4, BufferSize: 16, Affinity: all}, nil, StatusBufferTooSmall},
		{"11 1703 procrash case rejected", "10.0.15063", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 79, BucketSize: 6, BufferSize: 4, Affinity: all}, nil, StatusBufferTooSmall},
		{"12 1607 79-byte region accepted", "10.0.14393", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 79, BucketSize: 6, BufferSize: 4, Affinity: all}, nil, StatusSuccess},
		{"12 6.1 79-byte region accepted", "6.1", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 79, BucketSize: 6, BufferSize: 4, Affinity: all}, nil, StatusSuccess},
		{"13 1607 80-byte region rejected", "10.0.14393", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 80, BucketSize: 6, BufferSize: 4, Affinity: all}, nil, StatusBufferTooSmall},
		{"15 wrap", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: 0xFFFFFFFFFFFFF000, ProfileSize: 0x2000, BucketSize: 12, BufferSize: 8, Affinity: all}, nil, StatusBufferOverflow},
		{"15 wrap x86", "6.1", "x86", CreateArgs{Process: cur, ProfileBase: 0xFFFFF000, ProfileSize: 0x2000, BucketSize: 12, BufferSize: 8, Affinity: all}, nil, StatusBufferOverflow},
		{"16 too small before wrap", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: 0xFFFFFFFFFFFFF000, ProfileSize: 0x2000, BucketSize: 2, BufferSize: 8, Affinity: all}, nil, StatusBufferTooSmall},
		{"17 6.2 unsupported source", "6.2", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, ProfileSource: uint32(nt.ProfilePipelineDry), Affinity: all}, nil, StatusNotSupported},
		{"17 W10 unsupported source", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, ProfileSource: uint32(nt.ProfilePipelineDry), Affinity: all}, nil, StatusNotSupported},
		{"18 ProfileAlignmentFixup", "6.2", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, ProfileSource: uint32(nt.ProfileAlignmentFixup), Affinity: all}, nil, StatusNotSupported},
		{"19 6.1 unsupported source accepted", "6.1", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, ProfileSource: uint32(nt.ProfilePipelineDry), Affinity: all}, nil, StatusSuccess},
		{"20 misaligned Buffer", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x40, Affinity: all},
			func(e *env, a *CreateArgs) { a.Buffer = e.alloc(e.p, 0x100) + 2 }, StatusDatatypeMisalignment},
		{"21 Buffer in kernel space", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x40, Buffer: kernelBase, Affinity: all}, nil, StatusAccessViolation},
		{"21 Buffer read-only", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x40, Affinity: all},
			func(e *env, a *CreateArgs) { a.Buffer, _ = e.p.Alloc(0x40, ProtRead) }, StatusAccessViolation},
		{"21 Buffer running into the guard page", "10.0.19041", "", CreateArgs{Process: cur, ProfileBase: userBase, ProfileSize: 0x8000, BucketSize: 4, BufferSize: 0x2000, Affinity: all},
			func(e *env, a *CreateArgs) { a.Buffer = e.alloc(e.p, 0x1000) }, StatusAccessViolation},
		{"22 ProfileHandle in kernel space", "10.0.19041", "", CreateArgs{ProfileHandle: kernelBase, Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x40, Affinity: all}, nil, StatusAccessViolation},
		{"22 ProfileHandle x86 kernel space", "5.1", "x86", CreateArgs{ProfileHandle: 0x80001000, Process: cur, ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x40}, nil, StatusAccessViolation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.version, tc.arch)
			a := tc.args
			a.Process &= e.m.lay.ptrMask
			a.Affinity &= e.m.lay.ptrMask
			if tc.prep != nil {
				tc.prep(e, &a)
			}
			st, _ := e.createOn(e.th, a)
			if st != tc.want {
				t.Fatalf("got %v, want %v", st, tc.want)
			}
		})
	}
}

// TestCreateSegmentDefaultBucket checks item 8's computed bucket.
func TestCreateSegmentDefaultBucket(t *testing.T) {
	tests := []struct {
		size       uint64
		bufferSize uint32
		wantBucket uint32
	}{
		{0x10000, 0x100, 10}, // 64 counters of 1 KB
		{8, 16, 2},           // raised to at least 2
		{0x1000, 4, 12},      // one counter covering the whole region
	}
	for _, tc := range tests {
		e := newEnv(t, "10.0.19041", "x86")
		st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: 0x2000, ProfileSize: tc.size, BufferSize: tc.bufferSize, Affinity: e.m.lay.ptrMask})
		e.mustStatus(StatusSuccess, st, nil)
		info, _ := e.p.ProfileInfo(pr.handle)
		if info.BucketSize != tc.wantBucket || info.Segment != 0x2000 || info.Base != 0 {
			t.Errorf("size 0x%X buffer %d: bucket %d segment 0x%X base 0x%X; want bucket %d segment 0x2000 base 0", tc.size, tc.bufferSize, info.BucketSize, info.Segment, info.Base, tc.wantBucket)
		}
	}
}

// TestCreateSegmentBeforeSP4 shows the pre-SP4 divide by zero: a segment
// request whose buffer holds no counter faults in kernel mode.
func TestCreateSegmentBeforeSP4(t *testing.T) {
	e := newEnv(t, "3.51", "x86")
	st, err := e.th.NtCreateProfile(CreateArgs{ProfileHandle: e.alloc(e.p, 8), Process: e.m.currentProcessHandle(), ProfileBase: 0x1000, ProfileSize: 0x100, BufferSize: 3, Buffer: e.alloc(e.p, 4)})
	bc, ok := err.(*BugCheck)
	if !ok || bc.Code != nt.KMODE_EXCEPTION_NOT_HANDLED || bc.Params[0] != uint64(nt.StatusIntegerDivideByZero) {
		t.Fatalf("got %v, %v; want a KMODE_EXCEPTION_NOT_HANDLED bug check for the divide", st, err)
	}
	// and BufferSize 0 is not rejected before SP4
	e = newEnv(t, "3.51", "x86")
	st, _ = e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0, BucketSize: 4})
	if st != StatusSuccess {
		t.Fatalf("3.51 BufferSize 0: %v, want success (no check before 4.0 SP4)", st)
	}
}

// TestCreateExactFitEveryVersion is item 14.
func TestCreateExactFitEveryVersion(t *testing.T) {
	for _, vs := range Versions() {
		for _, bucket := range []uint32{2, 4, 6, 12} {
			e := newEnv(t, vs, "")
			n := uint64(16)
			st, _ := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: n << bucket, BucketSize: bucket, BufferSize: uint32(4 * n), Affinity: e.m.lay.ptrMask})
			if st != StatusSuccess {
				t.Errorf("%s bucket %d: %v, want success", vs, bucket, st)
			}
		}
	}
}

// TestCreateProcessorsAndPrivilege covers items 23–40.
func TestCreateProcessorsAndPrivilege(t *testing.T) {
	ga := func(e *env, mask uint64, group uint16, reserved byte) uint64 {
		size := e.th.groupAffinitySize()
		addr := e.alloc(e.p, size)
		b := make([]byte, size)
		ps := e.m.arch.PointerSize()
		for i := 0; i < ps; i++ {
			b[i] = byte(mask >> (8 * i))
		}
		binary.LittleEndian.PutUint16(b[ps:], group)
		b[ps+4] = reserved
		if err := e.p.Write(addr, b); err != nil {
			t.Fatal(err)
		}
		return addr
	}
	ex := func(e *env, count uint16, arr uint64) Status {
		st, err := e.th.NtCreateProfileEx(CreateArgs{ProfileHandle: e.alloc(e.p, 8), Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x100,
			BucketSize: 4, Buffer: e.alloc(e.p, 0x100), BufferSize: 0x100, GroupCount: count, AffinityArray: arr})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	t.Run("23 GroupCount 0 ignores a NULL array", func(t *testing.T) {
		e := newEnv(t, "6.1", "")
		if st := ex(e, 0, 0); st != StatusSuccess {
			t.Fatalf("%v", st)
		}
	})
	for _, tc := range []struct {
		name     string
		mask     uint64
		group    uint16
		reserved byte
		want     Status
	}{
		{"23 valid group affinity", 0x3, 0, 0, StatusSuccess},
		{"24 invalid group", 0x1, 1, 0, StatusInvalidParameter},
		{"25 empty mask", 0, 0, 0, StatusInvalidParameter},
		{"26 inactive processor", 0x10, 0, 0, StatusInvalidParameter},
		{"27 non-zero Reserved", 0x1, 0, 0, StatusInvalidParameter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "10.0.19041", "")
			res := tc.reserved
			if tc.name[:2] == "27" {
				res = 1
			}
			if st := ex(e, 1, ga(e, tc.mask, tc.group, res)); st != tc.want {
				t.Fatalf("got %v, want %v", st, tc.want)
			}
		})
	}
	t.Run("28 Affinity -1 selects the active processors", func(t *testing.T) {
		for _, arch := range []string{"x86", "x64"} {
			e := newEnv(t, "6.1", arch, withCPUs(3))
			st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, Affinity: e.m.lay.ptrMask})
			e.mustStatus(StatusSuccess, st, nil)
			if info, _ := e.p.ProfileInfo(pr.handle); info.Affinity != 0x7 {
				t.Fatalf("%s: affinity 0x%X, want 0x7", arch, info.Affinity)
			}
		}
	})
	t.Run("29 WOW64 0xFFFFFFFF on x64", func(t *testing.T) {
		e := newEnv(t, "6.1", "x64", withCPUs(4))
		st, _ := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, Affinity: 0xFFFFFFFF})
		if st != StatusInvalidParameter {
			t.Fatalf("got %v, want STATUS_INVALID_PARAMETER", st)
		}
		e = newEnv(t, "6.1", "x64", withCPUs(32))
		st, _ = e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, Affinity: 0xFFFFFFFF})
		if st != StatusSuccess {
			t.Fatalf("with 32 processors: got %v, want success", st)
		}
	})
	for _, tc := range []struct {
		name     string
		version  string
		affinity uint64
		want     uint64
	}{
		{"30 pre-6.1 affinity 0 profiles every processor", "6.0", 0, 0xF},
		{"30 NT 3.51 affinity 0", "3.51", 0, 0xF},
		{"31 SP4 inactive-only mask means all", "5.1", 1 << 10, 0xF},
		{"31 3.51 inactive-only mask never counts", "3.51", 1 << 10, 0},
		{"31 pre-6.1 partial mask kept", "5.2", 0x2, 0x2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.version, "x86")
			st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, Affinity: tc.affinity})
			e.mustStatus(StatusSuccess, st, nil)
			e.start(e.th, pr)
			if info, _ := e.p.ProfileInfo(pr.handle); info.Processors != tc.want {
				t.Fatalf("profiles processors 0x%X, want 0x%X", info.Processors, tc.want)
			}
			var started uint64
			for _, c := range e.m.HALLog() {
				if c.Call == "start" {
					started |= 1 << c.CPU
				}
			}
			if started != tc.want {
				t.Fatalf("HAL started on 0x%X, want 0x%X", started, tc.want)
			}
		})
	}
	handleCases := []struct {
		name string
		h    func(e *env) uint64
		want Status
	}{
		{"32 process handle without PROCESS_QUERY_INFORMATION", func(e *env) uint64 { return e.p.OpenProcess(e.process(), nt.PROCESS_VM_READ) }, StatusAccessDenied},
		{"32 with PROCESS_QUERY_INFORMATION", func(e *env) uint64 { return e.p.OpenProcess(e.process(), nt.PROCESS_QUERY_INFORMATION) }, StatusSuccess},
		{"33 handle to a profile object", func(e *env) uint64 { return e.own(e.th, userBase, 0x100, 4).handle }, StatusObjectTypeMismatch},
		{"33 bogus handle", func(e *env) uint64 { return 0x1234 }, StatusInvalidHandle},
	}
	for _, tc := range handleCases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "10.0.19041", "")
			st, _ := e.createOn(e.th, CreateArgs{Process: tc.h(e), ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, Affinity: e.m.lay.ptrMask})
			if st != tc.want {
				t.Fatalf("got %v, want %v", st, tc.want)
			}
		})
	}
	global := []struct {
		name    string
		version string
		tok     []func(*Token)
		base    uint64
		process bool
		want    Status
	}{
		{"34 global user range without privilege", "10.0.19041", nil, userBase, false, StatusPrivilegeNotHeld},
		{"34 global user range without privilege 5.1", "5.1", nil, userBase, false, StatusPrivilegeNotHeld},
		{"35 global user range with privilege", "10.0.19041", []func(*Token){privileged()}, userBase, false, StatusSuccess},
		{"36 global kernel range without privilege", "10.0.19041", nil, kernelBase, false, StatusSuccess},
		{"37 6.3 low integrity kernel range, own process", "6.3", []func(*Token){integrity(IntegrityLow)}, kernelBase, true, StatusAccessDenied},
		{"37 W10 low integrity kernel range, global", "10.0.19041", []func(*Token){integrity(IntegrityLow)}, kernelBase, false, StatusAccessDenied},
		{"38 6.2 low integrity kernel range", "6.2", []func(*Token){integrity(IntegrityLow)}, kernelBase, true, StatusSuccess},
		{"39 low integrity own user range", "10.0.19041", []func(*Token){integrity(IntegrityLow)}, userBase, true, StatusSuccess},
	}
	for _, tc := range global {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.version, "")
			p := e.process(tc.tok...)
			var proc uint64
			if tc.process {
				proc = e.m.currentProcessHandle()
			}
			st, _ := e.createOn(p.MainThread(), CreateArgs{Process: proc, ProfileBase: tc.base, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, Affinity: e.m.lay.ptrMask})
			if st != tc.want {
				t.Fatalf("got %v, want %v", st, tc.want)
			}
		})
	}
	t.Run("40 handle grants PROFILE_CONTROL, profile not started", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		pr := e.own(e.th, userBase, 0x100, 4)
		acc, ok := e.p.HandleAccess(pr.handle)
		if !ok || acc&nt.PROFILE_CONTROL == 0 {
			t.Fatalf("access 0x%X, want PROFILE_CONTROL", acc)
		}
		if info, _ := e.p.ProfileInfo(pr.handle); info.Started || info.MappedBuffer != 0 {
			t.Fatalf("a new profile is started: %+v", info)
		}
	})
}
