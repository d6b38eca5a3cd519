package kernel

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

// setTrace calls NtSetSystemInformation(SystemPerformanceTraceInformation)
// with an EVENT_TRACE_* structure written into th's memory.
func (e *env) setTrace(th *Thread, class uint32, handle uint64, vals ...uint32) Status {
	e.t.Helper()
	b := etwStruct(class, handle, vals)
	buf := e.alloc(th.proc, uint64(len(b)))
	if err := th.Write(buf, b); err != nil {
		e.t.Fatal(err)
	}
	st, err := th.NtSetSystemInformation(nt.SystemPerformanceTraceInformation, buf, uint32(len(b)))
	if err != nil {
		e.t.Fatal(err)
	}
	return st
}

// TestGroupMask covers item 98 and the group-mask sub-class.
func TestGroupMask(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	admin := e.process(privileged()).MainThread()
	masks := func(profile uint32) []uint32 { return []uint32{0, profile, 0, 0, 0, 0, 0, 0} }
	if st := e.setTrace(admin, nt.EventTraceGroupMaskInformation, KernelLoggerHandle, masks(maskProfile)...); st != nt.StatusWMIInstanceNotFound {
		t.Fatalf("no logger: %v", st)
	}
	s, _ := e.m.StartKernelLogger(false)
	if st := e.setTrace(e.th, nt.EventTraceGroupMaskInformation, KernelLoggerHandle, masks(maskProfile)...); st != StatusPrivilegeNotHeld {
		t.Fatalf("98 PERF_PROFILE without SeSystemProfilePrivilege: %v", st)
	}
	if st := e.setTrace(e.th, nt.EventTraceGroupMaskInformation, KernelLoggerHandle, masks(maskPMCProfile)...); st != StatusPrivilegeNotHeld {
		t.Fatalf("98 PERF_PMC_PROFILE without SeSystemProfilePrivilege: %v", st)
	}
	if st := e.setTrace(e.th, nt.EventTraceGroupMaskInformation, KernelLoggerHandle, 0, 0, 0x10); st != StatusInfoLengthMismatch {
		t.Fatalf("short structure: %v", st)
	}
	if st := e.setTrace(admin, nt.EventTraceGroupMaskInformation, KernelLoggerHandle, masks(maskProfile)...); st != StatusSuccess {
		t.Fatalf("privileged: %v", st)
	}
	if !s.Profile() || !e.m.Running(nt.ProfileTime, 3) {
		t.Fatal("PERF_PROFILE did not start sampled profiling")
	}
	must(t, e.interrupt(1, nt.ProfileTime, 0x1000, nil))
	if len(s.Events()) != 1 {
		t.Fatal("no sampled-profile event")
	}
	// query it back through the sub-class and through TraceQueryInformation class 4
	b := etwStruct(nt.EventTraceGroupMaskInformation, KernelLoggerHandle, make([]uint32, 8))
	buf := e.alloc(e.p, groupMaskSize)
	_ = e.p.Write(buf, b)
	st, err := e.th.NtQuerySystemInformation(nt.SystemPerformanceTraceInformation, buf, groupMaskSize, 0)
	e.mustStatus(StatusSuccess, st, err)
	if got := e.readU32s(e.p, buf+etwHeader, 2); got[1] != maskProfile {
		t.Fatalf("queried masks %v", got)
	}
	out := e.alloc(e.p, 32)
	if r, _ := e.th.TraceQueryInformation(KernelLoggerHandle, nt.TraceSystemTraceEnableFlagsInfo, out, 32, 0); r != nt.ErrorSuccess || e.readU32s(e.p, out, 2)[1] != maskProfile {
		t.Fatalf("class 4 query: %d", r)
	}
	if r, _ := e.th.TraceQueryInformation(KernelLoggerHandle, nt.TraceSystemTraceEnableFlagsInfo, out, 16, 0); r != nt.ErrorBadLength {
		t.Fatalf("class 4 small buffer: %d", r)
	}
	// clearing PERF_PROFILE through class 4 stops it
	zero := e.alloc(admin.proc, 8)
	if r, _ := admin.TraceSetInformation(KernelLoggerHandle, nt.TraceSystemTraceEnableFlagsInfo, zero, 8); r != nt.ErrorSuccess {
		t.Fatalf("class 4 set: %d", r)
	}
	if s.Profile() || e.m.Running(nt.ProfileTime, 3) {
		t.Fatal("clearing PERF_PROFILE did not stop it")
	}
	if r, _ := admin.TraceSetInformation(KernelLoggerHandle, nt.TraceSystemTraceEnableFlagsInfo, zero, 6); r != nt.ErrorInvalidParameter {
		t.Fatalf("class 4 partial ULONG: %d", r)
	}
	// before 6.2 the set is not implemented
	old := newEnv(t, "6.1", "")
	old.m.StartKernelLogger(false)
	if st := old.setTrace(old.process(privileged()).MainThread(), nt.EventTraceGroupMaskInformation, KernelLoggerHandle, masks(maskProfile)...); st != StatusNotImplemented {
		t.Fatalf("6.1 set: %v", st)
	}
}

// TestCounterList covers items 100–102 through the sub-class itself.
func TestCounterList(t *testing.T) {
	for _, tc := range []struct {
		version string
		max     int
	}{{"10.0.14393", 4}, {"10.0.15063", 8}, {"10.0.17763", 8}} {
		e := newEnv(t, tc.version, "")
		if st := e.setTrace(e.th, nt.EventTraceProfileCounterListInformation, KernelLoggerHandle, 2); st != nt.StatusWMIInstanceNotFound {
			t.Fatalf("102 inactive logger: %v", st)
		}
		e.m.StartKernelLogger(false)
		if st := e.setTrace(e.th, nt.EventTraceProfileCounterListInformation, 0x1234, 2); st != nt.StatusWMIInstanceNotFound {
			t.Fatalf("102 another logger id: %v", st)
		}
		if st := e.setTrace(e.th, nt.EventTraceProfileCounterListInformation, KernelLoggerHandle); st != StatusInvalidParameter {
			t.Fatalf("100 zero sources: %v", st)
		}
		too := make([]uint32, tc.max+1)
		if st := e.setTrace(e.th, nt.EventTraceProfileCounterListInformation, KernelLoggerHandle, too...); st != StatusInvalidParameter {
			t.Fatalf("100 %s: %d sources: %v", tc.version, tc.max+1, st)
		}
		e.m.InjectPoolFailures(1)
		if st := e.setTrace(e.th, nt.EventTraceProfileCounterListInformation, KernelLoggerHandle, 2); st != nt.StatusNoMemory {
			t.Fatalf("ETW_PMC_SUPPORT allocation: %v", st)
		}
		if st := e.setTrace(e.th, nt.EventTraceProfileCounterListInformation, KernelLoggerHandle, make([]uint32, tc.max)...); st != StatusSuccess {
			t.Fatalf("%s: %d sources: %v", tc.version, tc.max, st)
		}
		if st := e.setTrace(e.th, nt.EventTraceProfileCounterListInformation, KernelLoggerHandle, 2); st != nt.StatusWMIAlreadyEnabled {
			t.Fatalf("101 set twice: %v", st)
		}
	}
}

// TestCounterLimitFromHAL: from 1903 the counter limit of sub-class 0x0F
// is what the HALs report for HalQueryProfileNumberOfCounters, the largest
// of them, 0 with no counter HAL
// (docs/reference/tracing.md#eventtraceprofilecounterlistinformation-0x0f).
func TestCounterLimitFromHAL(t *testing.T) {
	pmu := func(n uint32) HALDispatch {
		h := NewTestHAL("pmu", nt.IntelCounterSources...)
		h.Counters = n
		return h
	}
	apic := func() HALDispatch { return NewTestHAL("apic", nt.ProfileTime) }
	other := func(n uint32) HALDispatch {
		h := NewTestHAL("other", 0x40)
		h.Counters = n
		return h
	}
	for _, tc := range []struct {
		name    string
		version string
		hals    []HALDispatch
		limit   int
	}{
		{"1809 keeps 8 whatever the HALDispatch has", "10.0.17763", []HALDispatch{apic(), pmu(4)}, 8},
		{"1903 pmu with 4 counters", "10.0.18362", []HALDispatch{apic(), pmu(4)}, 4},
		{"2004 pmu with 2 counters", "10.0.19041", []HALDispatch{apic(), pmu(2)}, 2},
		{"several HALs: the largest count", "10.0.19041", []HALDispatch{apic(), pmu(4), other(6)}, 6},
		{"no counter HALDispatch", "10.0.19041", []HALDispatch{apic()}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.version, "", withHALs(tc.hals...))
			e.m.StartKernelLogger(false)
			before := len(e.m.HALLog())
			if st := e.setTrace(e.th, nt.EventTraceProfileCounterListInformation, KernelLoggerHandle, make([]uint32, tc.limit+1)...); st != StatusInvalidParameter {
				t.Fatalf("%d sources over a limit of %d: %v", tc.limit+1, tc.limit, st)
			}
			var rows []HALCall
			for _, r := range e.m.HALLog()[before:] {
				if r.Call == "counters" {
					rows = append(rows, r)
				}
			}
			if e.m.ver.AtLeast("10.0.18362") && (len(rows) != len(tc.hals) || rows[0].Class != 0x2C) {
				t.Errorf("HALDispatch log rows of the query: %+v, want one per HALDispatch with class 0x2C", rows)
			}
			if tc.limit == 0 {
				return
			}
			if st := e.setTrace(e.th, nt.EventTraceProfileCounterListInformation, KernelLoggerHandle, make([]uint32, tc.limit)...); st != StatusSuccess {
				t.Fatalf("%d sources: %v", tc.limit, st)
			}
		})
	}
	broken := NewTestHAL("pmu", nt.IntelCounterSources...)
	e := newEnv(t, "10.0.19041", "", withHALs(apic(), broken))
	e.m.StartKernelLogger(false)
	broken.Fail = errors.New("plugin gone")
	b := etwStruct(nt.EventTraceProfileCounterListInformation, KernelLoggerHandle, []uint32{2})
	buf := e.alloc(e.p, uint64(len(b)))
	_ = e.th.Write(buf, b)
	if _, err := e.th.NtSetSystemInformation(nt.SystemPerformanceTraceInformation, buf, uint32(len(b))); err == nil || !strings.Contains(err.Error(), "plugin gone") {
		t.Errorf("a failing HAL: %v", err)
	}
}

// TestPEBSTracing covers item 103.
func TestPEBSTracing(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	admin := e.process(privileged()).MainThread()
	e.m.StartKernelLogger(false)
	for _, tc := range []struct {
		th    *Thread
		hooks []uint32
		want  Status
	}{
		{admin, []uint32{uint32(nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE)}, StatusInvalidParameter},
		{admin, []uint32{0x0524, 0x0524}, StatusInvalidParameter},
		{e.th, []uint32{0x0524}, StatusPrivilegeNotHeld},
		{admin, []uint32{0x0524}, StatusSuccess},
		{admin, nil, StatusSuccess},
	} {
		if st := e.setTrace(tc.th, nt.EventTracePebsTracingInformation, KernelLoggerHandle, tc.hooks...); st != tc.want {
			t.Errorf("hooks %x: %v, want %v", tc.hooks, st, tc.want)
		}
	}
	if st := e.setTrace(admin, nt.EventTracePebsTracingInformation, 0); st != nt.StatusWMIInstanceNotFound {
		t.Fatalf("no such logger: %v", st)
	}
}

// pmcSession starts the NT Kernel Logger profiling ProfileCacheMisses
// (TraceProfileSourceConfigInfo, then PERF_PMC_PROFILE), as an
// administrator; the stack walk of hooks is set before the profiling
// starts.
func (e *env) pmcSession(hooks []uint16) *TraceSession {
	t := e.t
	t.Helper()
	admin := e.process(privileged()).MainThread()
	s, _ := e.m.StartKernelLogger(false)
	must(t, s.SetStackWalk(hooks))
	src := e.alloc(admin.proc, 4)
	_ = admin.Write(src, binary.LittleEndian.AppendUint32(nil, uint32(nt.ProfileCacheMisses)))
	if r, _ := admin.TraceSetInformation(KernelLoggerHandle, nt.TraceProfileSourceConfigInfo, src, 4); r != nt.ErrorSuccess {
		t.Fatalf("class 6: %d", r)
	}
	if st := e.setTrace(admin, nt.EventTraceGroupMaskInformation, KernelLoggerHandle, 0, maskPMCProfile, 0, 0, 0, 0, 0, 0); st != StatusSuccess {
		t.Fatalf("PERF_PMC_PROFILE: %v", st)
	}
	return s
}

// TestPMCProfileEvents: sources chosen with TraceProfileSourceConfigInfo
// are profiled once PERF_PMC_PROFILE is enabled, each interrupt giving
// hook 0x0F2F.
func TestPMCProfileEvents(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	s := e.pmcSession(nil)
	if !e.m.Running(nt.ProfileCacheMisses, 2) {
		t.Fatal("the configured source was not started")
	}
	must(t, e.interrupt(2, nt.ProfileCacheMisses, 0x401000, e.th))
	must(t, e.interrupt(2, nt.ProfileTime, 0x401000, e.th))
	evs := s.Events()
	if len(evs) != 1 || evs[0].Hook != nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT || evs[0].ProfileSource != uint16(nt.ProfileCacheMisses) || evs[0].ThreadId != e.th.ID() {
		t.Fatalf("events %+v", evs)
	}
	counters, sources, pebs := s.PMCCounters()
	if len(counters) != 0 || len(sources) != 1 || pebs {
		t.Fatal("session state")
	}
	must(t, s.Stop())
	if e.m.Running(nt.ProfileCacheMisses, 2) {
		t.Fatal("stopping the logger left the source running")
	}
}

// TestPMCEventList: TracePmcEventListInfo turns each CLASSIC_EVENT_ID into
// a hook ID (PerfInfoGuid → group 0x0F, Type → the low byte) and skips
// unknown GUIDs.
func TestPMCEventList(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	s, _ := e.m.StartKernelLogger(false)
	buf := e.alloc(e.p, 3*24)
	entries := make([]byte, 3*24)
	copy(entries[0:], perfInfoGUID[:])
	entries[16] = 0x2E
	copy(entries[24:], []byte{1, 2, 3}) // an unknown GUID
	entries[24+16] = 0x99
	copy(entries[48:], perfInfoGUID[:])
	entries[48+16] = 0x2F
	_ = e.p.Write(buf, entries)
	if r, _ := e.th.TraceSetInformation(KernelLoggerHandle, nt.TracePmcEventListInfo, buf, 3*24); r != nt.ErrorSuccess {
		t.Fatalf("class 8: %d", r)
	}
	if len(s.pmcHooks) != 2 || s.pmcHooks[0] != 0x0F2E || s.pmcHooks[1] != 0x0F2F {
		t.Fatalf("hooks %x", s.pmcHooks)
	}
}
