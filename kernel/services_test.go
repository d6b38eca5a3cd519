package kernel

import (
	"errors"
	"strings"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

func TestVersions(t *testing.T) {
	for _, s := range Versions() {
		v, err := ParseVersion(s)
		if err != nil {
			t.Fatal(err)
		}
		if s != "10.0" && v.String() != s {
			t.Errorf("%s round-trips as %s", s, v)
		}
	}
	if v := MustVersion("10.0"); v.Build != Build1507 {
		t.Errorf("10.0 is build %d", v.Build)
	}
	if _, err := ParseVersion("7.0"); err == nil {
		t.Error("7.0 accepted")
	}
	order := Versions()
	for i := 1; i < len(order); i++ {
		a, b := MustVersion(order[i-1]), MustVersion(order[i])
		if order[i] != "10.0" && order[i-1] != "10.0" && !b.AtLeast(a.String()) {
			t.Errorf("%s before %s", a, b)
		}
	}
	if _, err := NewMachine(Config{Version: MustVersion("5.1"), Arch: X64, CPUs: 1}); err == nil {
		t.Error("x64 5.1 accepted")
	}
	if _, err := NewMachine(Config{Version: MustVersion("10.0.19041"), Arch: X86, CPUs: 33}); err == nil {
		t.Error("33 processors on x86 accepted")
	}
}

// TestServiceTable checks the declarations per version and the raw-call
// conventions: missing trailing arguments are 0, arguments are truncated
// to their width, extra arguments and missing services are errors.
func TestServiceTable(t *testing.T) {
	tests := []struct {
		version string
		service string
		arity   int // -1: absent
	}{
		{"3.10", "NtCreateProfile", 7}, {"3.50", "NtCreateProfile", 7}, {"3.51", "NtCreateProfile", 9},
		{"6.0", "NtCreateProfileEx", -1}, {"6.1", "NtCreateProfileEx", 10},
		{"3.10", "NtQueryIntervalProfile", 1}, {"3.51", "NtQueryIntervalProfile", 2},
		{"3.50", "NtSetIntervalProfile", 1}, {"4.0", "NtSetIntervalProfile", 2},
		{"6.1", "TraceQueryInformation", -1}, {"6.2", "TraceQueryInformation", 5},
		{"6.0", "TraceSetInformation", -1}, {"6.1", "TraceSetInformation", 4},
	}
	for _, tc := range tests {
		e := newEnv(t, tc.version, "")
		svc, ok := e.m.Service(tc.service)
		if tc.arity < 0 {
			if ok {
				t.Errorf("%s has %s", tc.version, tc.service)
			}
			if _, err := e.th.Call(tc.service, nil); !errors.As(err, new(*UnknownServiceError)) {
				t.Errorf("%s %s: %v", tc.version, tc.service, err)
			}
			continue
		}
		if !ok || len(svc.Params) != tc.arity {
			t.Errorf("%s %s: %d params, want %d", tc.version, tc.service, len(svc.Params), tc.arity)
		}
		if _, err := e.th.Call(tc.service, make([]uint64, tc.arity+1)); !errors.As(err, new(*ArityError)) {
			t.Errorf("%s %s with too many args: %v", tc.version, tc.service, err)
		}
	}
	// the set's argument order is the reverse of the query's
	e := newEnv(t, "10.0.19041", "")
	p := e.process(privileged())
	st, err := p.MainThread().Call("NtSetIntervalProfile", []uint64{20000, 0})
	e.mustStatus(StatusSuccess, Status(st), err)
	ptr := e.alloc(p, 4)
	st, err = p.MainThread().Call("NtQueryIntervalProfile", []uint64{0, ptr})
	e.mustStatus(StatusSuccess, Status(st), err)
	if got := e.readU32s(p, ptr, 1)[0]; got != 20000 {
		t.Fatalf("interval %d", got)
	}
	// -1 truncated to a 32-bit Affinity on x86 is still -1 there
	e = newEnv(t, "6.1", "x86")
	h, buf := e.alloc(e.p, 4), e.alloc(e.p, 0x40)
	st, err = e.th.Call("NtCreateProfile", []uint64{h, ^uint64(0), userBase, 0x40, 4, buf, 0x10, 0, ^uint64(0)})
	e.mustStatus(StatusSuccess, Status(st), err)
	// a 64-bit caller's 0xFFFFFFFF on x64 is not
	e = newEnv(t, "6.1", "x64")
	h, buf = e.alloc(e.p, 8), e.alloc(e.p, 0x40)
	st, err = e.th.Call("NtCreateProfile", []uint64{h, ^uint64(0), userBase, 0x40, 4, buf, 0x10, 0, 0xFFFFFFFF})
	e.mustStatus(StatusInvalidParameter, Status(st), err)
	// 3.10's NtCreateProfile has no source: seven arguments
	e = newEnv(t, "3.10", "x86")
	h, buf = e.alloc(e.p, 4), e.alloc(e.p, 0x40)
	st, err = e.th.Call("NtCreateProfile", []uint64{h, ^uint64(0), userBase, 0x40, 4, buf, 0x10})
	e.mustStatus(StatusSuccess, Status(st), err)
	if _, err := e.th.Call("NtCreateProfile", []uint64{h, ^uint64(0), userBase, 0x40, 4, buf, 0x10, 0}); err == nil {
		t.Fatal("3.10 accepted a source argument")
	}
}

func TestHALFailureStopsTheMachine(t *testing.T) {
	hal := NewTestHAL("apic", nt.ProfileTime)
	e := newEnv(t, "10.0.19041", "", withHALs(hal))
	hal.Fail = errors.New("plugin exited")
	_, err := e.th.NtQueryIntervalProfile(nt.ProfileTime, e.alloc(e.p, 4))
	var he *HALError
	if !errors.As(err, &he) || he.HAL != "apic" || he.Call != "query" {
		t.Fatalf("got %v", err)
	}
	if _, err := e.th.NtClose(4); !errors.Is(err, ErrHalted) {
		t.Fatalf("after the failure: %v", err)
	}
}

func TestHALComposition(t *testing.T) {
	pebs := NewTestHAL("pebs", nt.ProfileTotalIssues)
	e := newEnv(t, "10.0.19041", "", withHALs(pebs, NewTestHAL("apic", nt.ProfileTime), NewTestHAL("pmu", nt.IntelCounterSources...)))
	srcs, err := e.m.HALSources()
	if err != nil {
		t.Fatal(err)
	}
	owner := map[nt.Source]string{}
	for i, s := range srcs {
		owner[s.Source] = s.HAL
		if i > 0 && s.Source <= srcs[i-1].Source {
			t.Fatal("not in source order")
		}
	}
	if owner[nt.ProfileTotalIssues] != "pebs" || owner[nt.ProfileTime] != "apic" || owner[nt.ProfileCacheMisses] != "pmu" {
		t.Fatalf("owners %v", owner)
	}
	if len(e.m.HALLog()) != 0 {
		t.Fatal("HALSources logged calls")
	}
}

func TestMemory(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	a := e.alloc(e.p, 64)
	if a%PageSize != 0 || a < 0x10000 {
		t.Fatalf("alloc at 0x%X", a)
	}
	if err := e.p.Write(a+0xFFC, []byte{1, 2, 3, 4}); err != nil {
		t.Fatal("the rest of the page is mapped", err)
	}
	if err := e.p.Write(a+0x1000, []byte{1}); err == nil {
		t.Fatal("the guard page is writable")
	}
	b := e.alloc(e.p, 0x1000)
	if b < a+0x2000 {
		t.Fatalf("second allocation 0x%X overlaps the guard of 0x%X", b, a)
	}
	if err := e.p.Protect(b, 0x1000, ProtRead); err != nil {
		t.Fatal(err)
	}
	if err := e.p.Write(b, []byte{1}); err == nil {
		t.Fatal("write to a read-only page")
	}
	if _, err := e.p.AllocAt(b, 0x1000, ProtReadWrite); err == nil {
		t.Fatal("alloc_at on a mapped page")
	}
	if _, err := e.p.AllocAt(0x7FFFFFFF0000, 0x1000, ProtReadWrite); err == nil {
		t.Fatal("alloc_at in system space")
	}
	if err := e.p.Read(kernelBase, make([]byte, 4)); err == nil {
		t.Fatal("a process read system space")
	}
	for _, f := range []func() error{
		func() error { _, err := e.p.Alloc(MaxRegion+1, ProtReadWrite); return err },
		func() error { _, err := e.p.AllocAt(0x10000000, MaxRegion+1, ProtReadWrite); return err },
		func() error { return e.p.Protect(b, MaxRegion+1, ProtRead) },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "4 GB") {
			t.Fatalf("an oversized region: %v", err)
		}
	}
	if err := e.p.Free(b + 0x10); err == nil {
		t.Fatal("freed a non-allocation")
	}
	k, _ := e.m.NewKernelCaller(0)
	ka, err := k.Process().Alloc(0x10, ProtReadWrite)
	if err != nil || ka < e.m.lay.systemBase {
		t.Fatalf("kernel alloc 0x%X %v", ka, err)
	}
	if err := k.Write(ka, []byte{9}); err != nil {
		t.Fatal(err)
	}
	if err := e.p.Read(ka, make([]byte, 1)); err == nil {
		t.Fatal("a process read a kernel allocation")
	}
}

// TestSharedFrames: the locked buffer's system mapping and the user's
// view are the same bytes.
func TestSharedFrames(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	pr := e.own(e.th, userBase, 0x2000, 4) // 0x200 counters over a page boundary? no: 0x800 bytes
	e.start(e.th, pr)
	info, _ := e.p.ProfileInfo(pr.handle)
	if err := e.p.Write(pr.buffer+8, []byte{5, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if err := e.m.ReadSystem(info.MappedBuffer+8, got); err != nil || got[0] != 5 {
		t.Fatalf("system view %v %v", got, err)
	}
	if err := e.interrupt(0, nt.ProfileTime, userBase+0x20, e.th); err != nil {
		t.Fatal(err)
	}
	if c := e.readU32s(e.p, pr.buffer, 3); c[2] != 6 {
		t.Fatalf("counters %v", c)
	}
}
