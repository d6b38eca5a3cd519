package kernel

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

func TestParsers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		call func(string) error
	}{
		{"x86", true, func(s string) error { _, err := ParseArch(s); return err }},
		{"x64", true, func(s string) error { _, err := ParseArch(s); return err }},
		{"arm64", false, func(s string) error { _, err := ParseArch(s); return err }},
		{"rx", true, func(s string) error { _, err := ParseProt(s); return err }},
		{"none", true, func(s string) error { _, err := ParseProt(s); return err }},
		{"wx", false, func(s string) error { _, err := ParseProt(s); return err }},
		{"low", true, func(s string) error { _, err := ParseIntegrity(s); return err }},
		{"system", true, func(s string) error { _, err := ParseIntegrity(s); return err }},
		{"root", false, func(s string) error { _, err := ParseIntegrity(s); return err }},
	} {
		if err := tc.call(tc.in); (err == nil) != tc.ok {
			t.Errorf("%q: %v", tc.in, err)
		}
	}
	if l, ok := PrivilegeByName("SeSystemProfilePrivilege"); !ok || l != 11 {
		t.Error("SeSystemProfilePrivilege")
	}
	if l, ok := PrivilegeByName("SeProfileSingleProcessPrivilege"); !ok || l != 13 {
		t.Error("SeProfileSingleProcessPrivilege")
	}
	if _, ok := PrivilegeByName("SeDebugPrivilege"); ok {
		t.Error("unknown privilege accepted")
	}
	if X86.MmUserProbeAddress() != 0x7FFF0000 || X64.MmUserProbeAddress() != 0x7FFFFFFF0000 || X86.SystemBase() != 0x80000000 {
		t.Error("address-space boundaries")
	}
	if X64.ProfileIRQL() != 0x0F || X86.ProfileIRQL() != 0x1F || X86.String() != "x86" || UserMode.String() != "user" {
		t.Error("arch constants")
	}
}

// ProcessesByName finds each name's first process by id, as a search of
// Processes does.
func TestProcessesByName(t *testing.T) {
	e := newEnv(t, "6.3", "x64")
	m := e.m
	second := m.NewProcess("app", Token{})
	other := m.NewProcess("other", Token{})
	byName := m.ProcessesByName()
	if byName["app"] != e.p || byName["other"] != other || byName["System"] != m.System() || byName["none"] != nil {
		t.Errorf("by name: app %v (want the first, not %v), other %v, System %v", byName["app"], second, byName["other"], byName["System"])
	}
	if len(byName) != 3 {
		t.Errorf("%d names, want 3", len(byName))
	}
}

func TestMachineAccessors(t *testing.T) {
	e := newEnv(t, "6.3", "x86", withCPUs(2))
	m := e.m
	if m.Version().String() != "6.3" || m.Arch() != X86 || m.CPUCount() != 2 || m.Config().CPUs != 2 || m.System().ID() != 4 {
		t.Fatal("accessors")
	}
	m.Advance(42)
	if m.Now() != 42 {
		t.Fatal("time")
	}
	if e.p.ID()%4 != 0 || e.th.ID()%4 != 0 || e.p.Name() != "app" || e.p.Machine() != m || e.p.Token().Integrity != IntegrityMedium {
		t.Fatal("process accessors")
	}
	if len(m.Processes()) != 2 || m.Processes()[0] != m.System() {
		t.Fatal("process list")
	}
	if len(m.Descriptors()) != 1+len(nt.IntelCounterSources) {
		t.Fatal("descriptors")
	}
	if !m.PEBSSupported(0) || m.KernelLogger() != nil {
		t.Fatal("pebs / logger")
	}
	if m.InterruptCount(1) != 0 {
		t.Fatal("interrupt count")
	}
}

func TestThreads(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	th, err := e.p.CreateThread(0b1100)
	if err != nil || th.CPU() != 2 || th.Affinity() != 0b1100 || th.Mode() != UserMode || th.Process() != e.p {
		t.Fatalf("thread %+v %v", th, err)
	}
	if len(e.p.Threads()) != 2 {
		t.Fatal("threads")
	}
	if err := th.RunOn(1); err == nil {
		t.Fatal("ran outside its affinity")
	}
	if err := th.RunOn(9); err == nil {
		t.Fatal("ran on a processor that does not exist")
	}
	if _, err := e.p.CreateThread(1 << 8); err == nil {
		t.Fatal("affinity with no processor")
	}
	if err := th.RunOn(3); err != nil {
		t.Fatal(err)
	}
	// a service runs on the thread's processor
	n := len(e.m.HALLog())
	if st, err := th.NtQueryIntervalProfile(nt.ProfileTime, e.alloc(e.p, 4)); err != nil || st != StatusSuccess {
		t.Fatal(st, err)
	}
	if r := e.m.HALLog()[n]; r.CPU != 3 {
		t.Fatalf("query on cpu %d, want 3", r.CPU)
	}
	if _, err := e.m.NewKernelCaller(7); err == nil {
		t.Fatal("kernel caller on a missing processor")
	}
	if err := e.m.ProfileInterrupt(Interrupt{CPU: 4}); err == nil {
		t.Fatal("interrupt on a missing processor")
	}
}

func TestSetTimeProfileSubclass(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	set := func(p *Process, b []byte, n uint32) Status {
		buf := e.alloc(p, 0x10)
		_ = p.Write(buf, b)
		st, err := p.MainThread().NtSetSystemInformation(nt.SystemPerformanceTraceInformation, buf, n)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	req := []byte{3, 0, 0, 0, 0x20, 0x4E, 0, 0} // EventTraceTimeProfileInformation, 20000
	if st := set(e.p, req, 8); st != StatusPrivilegeNotHeld {
		t.Fatalf("unprivileged: %v", st)
	}
	p := e.process(privileged())
	for _, tc := range []struct {
		b    []byte
		n    uint32
		want Status
	}{
		{req, 3, StatusInvalidParameter},
		{req, 12, StatusInfoLengthMismatch},
		{[]byte{0x30}, 8, StatusNotImplemented},
		{req, 8, StatusSuccess},
	} {
		if st := set(p, tc.b, tc.n); st != tc.want {
			t.Fatalf("%v/%d: %v, want %v", tc.b, tc.n, st, tc.want)
		}
	}
	if e.m.TimeInterval() != 20000 {
		t.Fatalf("interval %d", e.m.TimeInterval())
	}
	if st, _ := e.th.NtSetSystemInformation(0x55, 0, 0); st != StatusInvalidInfoClass {
		t.Fatalf("unknown class: %v", st)
	}
	if st, _ := e.th.NtSetSystemInformation(nt.SystemPerformanceTraceInformation, e.alloc(e.p, 8)+1, 8); st != StatusDatatypeMisalignment {
		t.Fatalf("misaligned: %v", st)
	}
}

func TestKernelCallerFaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(k *Thread) error
		addr uint64
	}{
		{"sysinfo buffer", func(k *Thread) error {
			_, err := k.NtQuerySystemInformation(nt.SystemProcessorPerformanceInformation, kernelBase, 0x30, 0)
			return err
		}, kernelBase},
		{"return length", func(k *Thread) error {
			buf, _ := k.Process().Alloc(0x100, ProtReadWrite)
			_, err := k.NtQuerySystemInformation(nt.SystemProcessorPerformanceInformation, buf, 0x31, kernelBase+8)
			return err
		}, kernelBase + 8},
		{"control area request", func(k *Thread) error {
			_, err := k.NtSetSystemInformation(nt.SystemProcessorProfileControlArea, kernelBase, 0x10)
			return err
		}, kernelBase + 8},
		{"profile handle", func(k *Thread) error {
			buf, _ := k.Process().Alloc(0x100, ProtReadWrite)
			_, err := k.NtCreateProfile(CreateArgs{ProfileHandle: kernelBase, ProfileBase: userBase, ProfileSize: 0x40, BucketSize: 4, Buffer: buf, BufferSize: 0x10, Affinity: ^uint64(0)})
			return err
		}, kernelBase},
		{"group affinity", func(k *Thread) error {
			buf, _ := k.Process().Alloc(0x100, ProtReadWrite)
			_, err := k.NtCreateProfileEx(CreateArgs{ProfileHandle: buf, ProfileBase: userBase, ProfileSize: 0x40, BucketSize: 4, Buffer: buf + 8, BufferSize: 0x10, GroupCount: 1, AffinityArray: kernelBase})
			return err
		}, kernelBase},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "10.0.19041", "")
			k, _ := e.m.NewKernelCaller(0)
			err := tc.call(k)
			var bc *BugCheck
			if !errors.As(err, &bc) || bc.Code != nt.PAGE_FAULT_IN_NONPAGED_AREA || bc.Params[0] != tc.addr {
				t.Fatalf("got %v, want bug check 0x50 at 0x%X", err, tc.addr)
			}
			if !strings.Contains(err.Error(), "PAGE_FAULT_IN_NONPAGED_AREA") || !errors.Is(e.m.Err(), bc) {
				t.Fatalf("message %q", err)
			}
			if _, err := e.th.NtClose(4); err == nil || !strings.Contains(err.Error(), "refuses further work") {
				t.Fatalf("after stop: %v", err)
			}
		})
	}
}

// badHAL answers for the wrong number of processors.
type badHAL struct{ *TestHAL }

func (h badHAL) QuerySource(cpus []int, src nt.Source) ([]SourceInfo, error) {
	return []SourceInfo{{Supported: true}}, nil
}

func (h badHAL) SetInterval(cpus []int, src nt.Source, v uint32) ([]uint32, error) { return nil, nil }

func TestHALNonsenseAnswers(t *testing.T) {
	for _, call := range []string{"query", "set"} {
		e := newEnv(t, "10.0.19041", "", withHALs(badHAL{NewTestHAL("apic", nt.ProfileTime)}))
		p := e.process(privileged())
		var err error
		if call == "query" {
			_, err = p.MainThread().NtSetIntervalProfile(5000, nt.ProfileTotalIssues) // unowned: fine
			if err != nil {
				t.Fatal(err)
			}
			err = e.m.ProfileInterrupt(Interrupt{CPU: 0})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.MainThread().Call("NtCreateProfileEx", []uint64{e.alloc(p, 8), 0, kernelBase, 0x40, 4, e.alloc(p, 0x10), 0x10, 0, 2, e.alloc(p, 0x20)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.m.HALSources()
			if err != nil {
				t.Fatal(err) // one cpu asked, one answered
			}
			_, err = p.MainThread().NtSetIntervalProfile(5000, nt.ProfileTime)
		} else {
			_, err = p.MainThread().NtSetIntervalProfile(5000, nt.ProfileTime)
		}
		var he *HALError
		if !errors.As(err, &he) || !strings.Contains(he.Error(), "answered for") || errors.Unwrap(he) == nil {
			t.Fatalf("%s: %v", call, err)
		}
	}
}

func TestServiceErrorsAreReadable(t *testing.T) {
	e := newEnv(t, "3.10", "x86")
	_, err := e.th.Call("NtQueryIntervalProfile", []uint64{0, 0})
	if err == nil || !strings.Contains(err.Error(), "NtQueryIntervalProfile(Interval)") || !strings.Contains(err.Error(), "3.10") {
		t.Fatalf("%v", err)
	}
	_, err = e.th.Call("NtCreateProfileEx", nil)
	if err == nil || !strings.Contains(err.Error(), "does not exist in Windows 3.10") {
		t.Fatalf("%v", err)
	}
	if s := fmt.Sprint(NewTestHAL("x", nt.ProfileTime)); !strings.Contains(s, "x") {
		t.Fatal(s)
	}
}

func TestTestHALRunning(t *testing.T) {
	h := NewTestHAL("apic", nt.ProfileTime)
	e := newEnv(t, "10.0.19041", "", withHALs(h))
	pr := e.own(e.th, userBase, 0x40, 4)
	e.start(e.th, pr)
	if !h.Running(nt.ProfileTime, 3) {
		t.Fatal("not running")
	}
	st, err := e.th.NtStopProfile(pr.handle)
	e.mustStatus(StatusSuccess, st, err)
	if h.Running(nt.ProfileTime, 3) {
		t.Fatal("still running")
	}
}
