package kernel

import (
	"errors"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

// TestStoppedMachineRefusesWork: after a bug check every call that would
// run the machine fails with ErrHalted, and reads still work.
func TestStoppedMachineRefusesWork(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	a := e.alloc(e.p, 0x10)
	_ = e.p.Write(a, []byte{7})
	e.m.bugCheck(nt.IRQL_NOT_LESS_OR_EQUAL, 1, 2, 3, 4)
	k, _ := e.m.NewKernelCaller(0)
	calls := map[string]func() error{
		"alloc":     func() error { _, err := e.p.Alloc(1, ProtReadWrite); return err },
		"alloc_at":  func() error { _, err := e.p.AllocAt(0x7000000, 1, ProtReadWrite); return err },
		"protect":   func() error { return e.p.Protect(a, 1, ProtRead) },
		"free":      func() error { return e.p.Free(a) },
		"write":     func() error { return e.p.Write(a, []byte{1}) },
		"t.write":   func() error { return k.Write(a, []byte{1}) },
		"logger":    func() error { _, err := e.m.StartKernelLogger(true); return err },
		"interrupt": func() error { return e.interrupt(0, 0, 0, nil) },
	}
	for _, svc := range e.m.Services() {
		name := svc.Name
		calls[name] = func() error { _, err := e.th.Call(name, nil); return err }
	}
	for name, f := range calls {
		if err := f(); !errors.Is(err, ErrHalted) {
			t.Errorf("%s: %v", name, err)
		}
	}
	b := make([]byte, 1)
	if err := e.p.Read(a, b); err != nil || b[0] != 7 {
		t.Fatal("reads must keep working")
	}
}

// TestEveryServiceThroughCall drives each declared service with
// plausible raw arguments on several versions.
func TestEveryServiceThroughCall(t *testing.T) {
	for _, v := range []string{"3.10", "5.1", "6.1", "6.2", "10.0.19041"} {
		e := newEnv(t, v, "")
		p := e.process(privileged())
		th := p.MainThread()
		buf := e.alloc(p, 0x1000)
		h := e.alloc(p, 8)
		for _, svc := range e.m.Services() {
			var args []uint64
			switch svc.Name {
			case "NtCreateProfile":
				args = []uint64{h, ^uint64(0), userBase, 0x40, 4, buf, 0x10, 0, ^uint64(0)}[:len(svc.Params)]
			case "NtCreateProfileEx":
				args = []uint64{h, ^uint64(0), userBase, 0x40, 4, buf, 0x10, 0, 0, 0}
			case "NtStartProfile", "NtStopProfile", "NtClose":
				args = []uint64{e.readPtr(p, h)}
			case "NtQueryIntervalProfile":
				args = []uint64{0, buf + 0x100}[2-len(svc.Params):]
			case "NtSetIntervalProfile":
				args = []uint64{5000, 0}[:len(svc.Params)]
			case "NtQuerySystemInformation":
				args = []uint64{uint64(nt.SystemProcessorPerformanceInformation), buf + 0x200, 0x30, buf + 0x300}
			case "NtSetSystemInformation":
				args = []uint64{0x12345, buf, 8}
			case "TraceQueryInformation":
				args = []uint64{0, uint64(nt.TraceSampledProfileIntervalInfo), buf + 0x400, 8, 0}
			case "TraceSetInformation":
				if e.m.logger == nil {
					if _, err := e.m.StartKernelLogger(false); err != nil {
						t.Fatal(err)
					}
				}
				args = []uint64{KernelLoggerHandle, uint64(nt.TracePmcEventListInfo), 0, 0}
			}
			r, err := th.Call(svc.Name, args)
			if err != nil {
				t.Fatalf("%s %s: %v", v, svc.Name, err)
			}
			if svc.Name == "NtSetSystemInformation" {
				if Status(r) != StatusInvalidInfoClass {
					t.Errorf("%s %s: %v", v, svc.Name, Status(r))
				}
			} else if svc.Name == "TraceSetInformation" && v == "6.1" {
				if r != nt.ErrorNotSupported {
					t.Errorf("%s %s: %d", v, svc.Name, r)
				}
			} else if r != 0 {
				t.Errorf("%s %s: 0x%X", v, svc.Name, r)
			}
		}
	}
}

func TestLargeMachines(t *testing.T) {
	e := newEnv(t, "10.0.19041", "x64", withCPUs(64))
	if e.m.activeMask() != ^uint64(0) {
		t.Fatal("64 processors")
	}
	st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x40, BucketSize: 4, BufferSize: 0x10, Affinity: ^uint64(0)})
	e.mustStatus(StatusSuccess, st, nil)
	e.start(e.th, pr)
	if err := e.interrupt(63, nt.ProfileTime, userBase, e.th); err != nil {
		t.Fatal(err)
	}
	if got := e.readU32s(e.p, pr.buffer, 1); got[0] != 1 {
		t.Fatal("cpu 63 did not count")
	}
	// 3.10 reports exact processor times (no tick rounding)
	e = newEnv(t, "3.10", "x86")
	e.m.AccountTime(0, CPUTimes{User: 12345})
	buf := e.alloc(e.p, 0x100)
	st, err := e.th.NtQuerySystemInformation(nt.SystemProcessorPerformanceInformation, buf, 0x30, 0)
	e.mustStatus(StatusSuccess, st, err)
	if got := e.readU32s(e.p, buf+0x10, 1)[0]; got != 12345 {
		t.Fatalf("3.10 user time %d", got)
	}
}

func TestTraceSetMoreClasses(t *testing.T) {
	e := newEnv(t, "10.0.14393", "")
	buf := e.alloc(e.p, 0x100)
	s, _ := e.m.StartKernelLogger(true)
	for _, tc := range []struct {
		class   uint32
		session uint64
		b       uint64
		n       uint32
		want    uint32
	}{
		{nt.TraceProfileSourceConfigInfo, KernelLoggerHandle, buf, 8, nt.ErrorSuccess},
		{nt.TraceProfileSourceConfigInfo, 0, buf, 8, nt.ErrorWMIInstanceNotFound},
		{nt.TraceProfileSourceConfigInfo, 0, buf, 6, nt.ErrorIncorrectSize},
		{nt.TracePmcEventListInfo, KernelLoggerHandle, buf, 24, nt.ErrorSuccess},
		{nt.TracePmcEventListInfo, 0, buf, 5 * 24, nt.ErrorIncorrectSize},
		{nt.TracePmcEventListInfo, 0, buf, 0, nt.ErrorInvalidParameter},
		{nt.TraceSampledProfileIntervalInfo, 1, buf, 8, nt.ErrorInvalidParameter},
		{nt.TraceSampledProfileIntervalInfo, 0, buf, 4, nt.ErrorBadLength},
		{nt.TraceSampledProfileIntervalInfo, 0, kernelBase, 8, nt.ErrorNoAccess},
	} {
		r, err := e.th.TraceSetInformation(tc.session, tc.class, tc.b, tc.n)
		if err != nil || r != tc.want {
			t.Errorf("class %d len %d: %d %v, want %d", tc.class, tc.n, r, err, tc.want)
		}
	}
	if n, _ := e.m.maxPMCCounters(); n != 4 {
		t.Error("ETW_MAX_PMC_COUNTERS 1607")
	}
	if n, _ := newEnv(t, "10.0.15063", "").m.maxPMCCounters(); n != 8 {
		t.Error("ETW_MAX_PMC_COUNTERS per version")
	}
	if !s.Running() || !s.Profile() || e.m.KernelLogger() != s {
		t.Fatal("session state")
	}
	// the sampled-profile data is in system memory the hardware may write
	if err := e.m.WriteSystem(kernelBase, []byte{1}); err == nil {
		t.Fatal("wrote an unmapped system page")
	}
	if rl := e.alloc(e.p, 4); true {
		r, _ := e.th.TraceQueryInformation(0, nt.TraceProfileSourceListInfo, buf, 4, rl)
		if r != nt.ErrorBadLength {
			t.Fatalf("small buffer: %d", r)
		}
		if r, _ := e.th.TraceQueryInformation(0, nt.TraceProfileSourceListInfo, buf, 4, kernelBase); r != nt.ErrorNoAccess {
			t.Fatalf("bad ReturnLength: %d", r)
		}
		if r, _ := e.th.TraceQueryInformation(3, nt.TraceProfileSourceListInfo, buf, 4, rl); r != nt.ErrorInvalidParameter {
			t.Fatalf("session 3: %d", r)
		}
		if r, _ := e.th.TraceQueryInformation(0, 0x33, buf, 4, rl); r != nt.ErrorNotSupported {
			t.Fatalf("unknown class: %d", r)
		}
	}
}

func TestProfilesListing(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	a := e.own(e.th, userBase, 0x40, 4)
	b := e.own(e.th, userBase, 0x80, 5)
	e.start(e.th, a)
	if err := e.interrupt(0, nt.ProfileTime, userBase+0x15, e.th); err != nil {
		t.Fatal(err)
	}
	recs := e.m.Profiles()
	if len(recs) != 2 || recs[0].Handle != a.handle || recs[1].Handle != b.handle || !recs[0].Info.Started || recs[1].Info.Started {
		t.Fatalf("records %+v", recs)
	}
	c, err := recs[0].Counters()
	if err != nil || len(c) != 4 || c[1] != 1 {
		t.Fatalf("started counters %v %v", c, err)
	}
	c, err = recs[1].Counters()
	if err != nil || len(c) != 4 || c[0] != 0 {
		t.Fatalf("stopped counters %v %v", c, err)
	}
}

// TestObjectSizes checks the EPROFILE and KPROFILE sizes
// (docs/reference/profile-objects.md#eprofile-the-executive-profile-object,
// docs/reference/start-stop.md#kprofile-the-kernel-profile-object).
func TestObjectSizes(t *testing.T) {
	for _, tc := range []struct {
		version, arch string
		e, k          uint64
	}{
		{"3.10", "x86", 0x28, 0x28}, {"3.51", "x86", 0x30, 0x2C}, {"6.0", "x64", 0x50, 0x58},
		{"6.1", "x86", 0x38, 0x34}, {"6.1", "x64", 0x70, 0x78}, {"6.2", "x64", 0xF0, 0xF8}, {"10.0.19041", "x86", 0x38, 0x34},
	} {
		m := newEnv(t, tc.version, tc.arch).m
		if m.eprofileSize() != tc.e || m.kprofileSize() != tc.k {
			t.Errorf("%s %s: EPROFILE 0x%X KPROFILE 0x%X, want 0x%X 0x%X", tc.version, tc.arch, m.eprofileSize(), m.kprofileSize(), tc.e, tc.k)
		}
	}
}
