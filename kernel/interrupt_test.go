package kernel

import (
	"errors"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

// TestInterruptHits covers items 58–63 and 65 of
// docs/reference/conformance.md: which interrupts count and where.
func TestInterruptHits(t *testing.T) {
	const base, size, bucket = userBase, 0x40, 4 // four 16-byte buckets
	tests := []struct {
		name    string
		version string
		cpu     int
		src     nt.Source
		ip      uint64
		want    []uint32
	}{
		{"58 other source", "10.0.19041", 0, nt.ProfileTotalIssues, base, []uint32{0, 0, 0, 0}},
		{"59 processor outside affinity", "10.0.19041", 3, nt.ProfileTime, base, []uint32{0, 0, 0, 0}},
		{"60 ip = RangeBase", "10.0.19041", 0, nt.ProfileTime, base, []uint32{1, 0, 0, 0}},
		{"61 ip = RangeLimit - 1", "10.0.19041", 1, nt.ProfileTime, base + size - 1, []uint32{0, 0, 0, 1}},
		{"62 ip = RangeBase - 1", "10.0.19041", 0, nt.ProfileTime, base - 1, []uint32{0, 0, 0, 0}},
		{"63 ip = RangeLimit 1809", "10.0.17763", 0, nt.ProfileTime, base + size, []uint32{0, 0, 0, 0, 0}},
		{"63 ip = RangeLimit 6.1", "6.1", 0, nt.ProfileTime, base + size, []uint32{0, 0, 0, 0, 0}},
		{"64 ip = RangeLimit 1803 counts past the end", "10.0.17134", 0, nt.ProfileTime, base + size, []uint32{0, 0, 0, 0, 1}},
		{"64 ip = RangeLimit 6.2 counts past the end", "6.2", 0, nt.ProfileTime, base + size, []uint32{0, 0, 0, 0, 1}},
		{"65 ip = base+0x25 hits counter 2", "10.0.19041", 0, nt.ProfileTime, base + 0x25, []uint32{0, 0, 1, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.version, "")
			// an oversized buffer so the ULONG past the counters is visible
			st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: base, ProfileSize: size, BucketSize: bucket,
				BufferSize: 0x10, Affinity: 0b0011})
			e.mustStatus(StatusSuccess, st, nil)
			e.start(e.th, pr)
			if err := e.interrupt(tc.cpu, tc.src, tc.ip, e.th); err != nil {
				t.Fatal(err)
			}
			got := e.readU32s(e.p, pr.buffer, len(tc.want))
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("counters %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestInclusiveEndBugCheck covers item 64's fault: the ULONG past an
// exact-fit buffer that ends on a page boundary is unmapped in system
// space, even when the user mapped the next page.
func TestInclusiveEndBugCheck(t *testing.T) {
	for _, tc := range []struct {
		version string
		arch    string
		bug     bool
	}{
		{"6.2", "x64", true}, {"6.2", "x86", true}, {"6.3", "x64", true}, {"10.0.17134", "x64", true},
		{"10.0.17763", "x64", false}, {"6.1", "x64", false}, {"10.0.19041", "x86", false},
	} {
		t.Run(tc.version+" "+tc.arch, func(t *testing.T) {
			e := newEnv(t, tc.version, tc.arch)
			buf := e.alloc(e.p, 0x1000)
			if _, err := e.p.AllocAt(buf+0x1000, 0x1000, ProtReadWrite); err != nil {
				t.Fatal(err)
			}
			// 1024 buckets of 4 bytes: ProfileSize 0x1000 fills the page-sized buffer exactly
			st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x1000, BucketSize: 2,
				Buffer: buf, BufferSize: 0x1000, Affinity: e.m.lay.ptrMask})
			e.mustStatus(StatusSuccess, st, nil)
			e.start(e.th, pr)
			info, _ := e.p.ProfileInfo(pr.handle)
			err := e.interrupt(2, nt.ProfileTime, userBase+0x1000, e.th)
			var bc *BugCheck
			if !tc.bug {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				return
			}
			if !errors.As(err, &bc) || bc != e.m.BugCheck() {
				t.Fatalf("got %v, want a bug check", err)
			}
			want := [4]uint64{info.MappedBuffer + 0x1000, e.m.arch.ProfileIRQL(), 1, e.m.lay.faultIP}
			if bc.Code != nt.IRQL_NOT_LESS_OR_EQUAL || bc.Params != want {
				t.Fatalf("bug check %v, want 0x0A with %X", bc, want)
			}
			// the machine refuses further work, and inspection still works
			if _, err := e.th.NtStopProfile(pr.handle); !errors.Is(err, ErrHalted) {
				t.Fatalf("after the bug check: %v", err)
			}
			if err := e.interrupt(0, nt.ProfileTime, userBase, e.th); !errors.Is(err, ErrHalted) {
				t.Fatalf("interrupt after the bug check: %v", err)
			}
			if got := e.readU32s(e.p, buf+0x1000, 1); got[0] != 0 {
				t.Fatal("the user's next page was written")
			}
		})
	}
}

// TestInterruptLists covers items 66–68.
func TestInterruptLists(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	e.p.token.Privileges[nt.SeSystemProfilePrivilege] = true
	other := e.process()
	own := e.own(e.th, userBase, 0x40, 4)
	own2 := e.own(e.th, userBase, 0x40, 5)
	st, global := e.createOn(e.th, CreateArgs{ProfileBase: userBase, ProfileSize: 0x40, BucketSize: 4, BufferSize: 0x10, Affinity: e.m.lay.ptrMask})
	e.mustStatus(StatusSuccess, st, nil)
	for _, pr := range []profile{own, own2, global} {
		e.start(e.th, pr)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.interrupt(0, nt.ProfileTime, userBase+0x10, other.MainThread())) // 66, 67
	must(e.interrupt(1, nt.ProfileTime, userBase+0x10, nil))                // idle: global only
	must(e.interrupt(2, nt.ProfileTime, userBase+0x30, e.th))               // 68: all three
	if got := e.readU32s(e.p, own.buffer, 4); got[1] != 0 || got[3] != 1 {
		t.Errorf("66 own profile %v: counted another process's interrupt", got)
	}
	if got := e.readU32s(e.p, own2.buffer, 2); got[1] != 1 {
		t.Errorf("68 second own profile %v", got)
	}
	if got := e.readU32s(e.p, global.buffer, 4); got[1] != 2 || got[3] != 1 {
		t.Errorf("67 global profile %v, want 2 in bucket 1 and 1 in bucket 3", got)
	}
}

// TestCallbackObject covers item 69.
func TestCallbackObject(t *testing.T) {
	e := newEnv(t, "6.2", "")
	var got []Interrupt
	remove, err := e.m.AddCallbackObject(nt.ProfileCacheMisses, func(in Interrupt) { got = append(got, in) })
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.interrupt(3, nt.ProfileCacheMisses, 0xDEAD0000, nil))
	must(e.interrupt(1, nt.ProfileTime, 0xDEAD0000, nil))
	must(e.interrupt(0, nt.ProfileCacheMisses, kernelBase, e.th))
	if len(got) != 2 || got[0].CPU != 3 || got[0].IP != 0xDEAD0000 || got[1].Thread != e.th {
		t.Fatalf("callbacks %+v", got)
	}
	remove()
	must(e.interrupt(0, nt.ProfileCacheMisses, kernelBase, e.th))
	if len(got) != 2 {
		t.Fatal("callback ran after removal")
	}
	if _, err := newEnv(t, "6.1", "").m.AddCallbackObject(nt.ProfileTime, func(Interrupt) {}); err == nil {
		t.Fatal("callback objects before 6.2")
	}
}

// TestInterruptCount covers item 70 (both architectures rise by one).
func TestInterruptCount(t *testing.T) {
	for _, arch := range []string{"x86", "x64"} {
		e := newEnv(t, "10.0.19041", arch)
		for i := 0; i < 5; i++ {
			if err := e.interrupt(1, nt.ProfileTime, 0x1000, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.interrupt(1, nt.ProfileTotalIssues, 0x1000, nil); err != nil {
			t.Fatal(err)
		}
		buf := e.alloc(e.p, 0x1000)
		st, err := e.th.NtQuerySystemInformation(nt.SystemProcessorPerformanceInformation, buf, 4*0x30, 0)
		e.mustStatus(StatusSuccess, st, err)
		if got := e.readU32s(e.p, buf+0x30+0x28, 1)[0]; got != 6 {
			t.Errorf("%s: InterruptCount of cpu 1 is %d, want 6", arch, got)
		}
		if got := e.readU32s(e.p, buf+0x28, 1)[0]; got != 0 {
			t.Errorf("%s: cpu 0 counted %d", arch, got)
		}
	}
}

// TestKeProfileInterrupt covers item 71: before 3.51 there is no source,
// and every profile counts every interrupt; from 3.51 the source-less
// entry is WithSource(ProfileTime).
func TestKeProfileInterrupt(t *testing.T) {
	e := newEnv(t, "3.10", "x86")
	st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x40, BucketSize: 4, BufferSize: 0x10})
	e.mustStatus(StatusSuccess, st, nil)
	e.start(e.th, pr)
	if err := e.interrupt(3, nt.ProfileCacheMisses, userBase, e.th); err != nil {
		t.Fatal(err)
	}
	if got := e.readU32s(e.p, pr.buffer, 1); got[0] != 1 {
		t.Fatalf("3.10 counters %v", got)
	}
	e = newEnv(t, "3.51", "x86")
	pr = e.own(e.th, userBase, 0x40, 4)
	e.start(e.th, pr)
	if err := e.interrupt(0, nt.ProfileTime, userBase, e.th); err != nil {
		t.Fatal(err)
	}
	if err := e.interrupt(0, nt.ProfileCacheMisses, userBase, e.th); err != nil {
		t.Fatal(err)
	}
	if got := e.readU32s(e.p, pr.buffer, 1); got[0] != 1 {
		t.Fatalf("3.51 counters %v, want only the ProfileTime interrupt", got)
	}
}

// TestSourceNarrowedTo16Bits: KPROFILE keeps a SHORT source from 3.51, so
// before 6.2 (no HAL check at create) source 0x10000 counts ProfileTime.
func TestSourceNarrowedTo16Bits(t *testing.T) {
	e := newEnv(t, "6.1", "")
	st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x40, BucketSize: 4, BufferSize: 0x10,
		ProfileSource: 0x10000, Affinity: e.m.lay.ptrMask})
	e.mustStatus(StatusSuccess, st, nil)
	e.start(e.th, pr)
	if err := e.interrupt(0, nt.ProfileTime, userBase, e.th); err != nil {
		t.Fatal(err)
	}
	if got := e.readU32s(e.p, pr.buffer, 1); got[0] != 1 {
		t.Fatalf("counters %v", got)
	}
}

// TestPreOldLimitDefectWritesPastBuffer: the pre-1703 size check lets a
// 79-byte region with a 4-byte buffer write the ULONG after it
// ([GC-procrash]); with the buffer ending a page, that is a bug check even
// after 1809.
func TestPreOldLimitDefectWritesPastBuffer(t *testing.T) {
	e := newEnv(t, "10.0.14393", "")
	page := e.alloc(e.p, 0x1000)
	st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 79, BucketSize: 6,
		Buffer: page + 0xFFC, BufferSize: 4, Affinity: e.m.lay.ptrMask})
	e.mustStatus(StatusSuccess, st, nil)
	e.start(e.th, pr)
	var bc *BugCheck
	if err := e.interrupt(0, nt.ProfileTime, userBase+78, e.th); !errors.As(err, &bc) || bc.Code != nt.IRQL_NOT_LESS_OR_EQUAL {
		t.Fatalf("got %v, want bug check 0x0A", err)
	}
}
