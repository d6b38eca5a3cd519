package kernel

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

func (e *env) queryInterval(th *Thread, src nt.Source) uint32 {
	e.t.Helper()
	ptr := e.alloc(th.proc, 4)
	if err := th.Write(ptr, []byte{0xEE, 0xEE, 0xEE, 0xEE}); err != nil {
		e.t.Fatal(err)
	}
	st, err := th.NtQueryIntervalProfile(src, ptr)
	e.mustStatus(StatusSuccess, st, err)
	return e.readU32s(th.proc, ptr, 1)[0]
}

// TestQueryInterval covers items 72–74 and 82.
func TestQueryInterval(t *testing.T) {
	tests := []struct {
		name    string
		version string
		src     nt.Source
		want    uint32
	}{
		{"72 unsupported source reports 0", "10.0.19041", nt.ProfilePipelineDry, 0},
		{"72 6.1 unsupported source", "6.1", nt.ProfileLoadInstructions, 0},
		{"73 ProfileAlignmentFixup before any set", "10.0.19041", nt.ProfileAlignmentFixup, 0},
		{"80 ProfileTime default", "10.0.19041", nt.ProfileTime, 39063},
		{"82 counter default", "10.0.19041", nt.ProfileBranchMispredictions, 65536},
		{"82 AMD counter default", "6.0", nt.ProfileDcacheMisses, 65536},
		{"3.10 one-argument form", "3.10", nt.ProfileTime, 39063},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := []envOpt{}
			if tc.src == nt.ProfileDcacheMisses {
				opts = append(opts, withVendor(nt.VendorAMD))
			}
			e := newEnv(t, tc.version, "", opts...)
			if got := e.queryInterval(e.th, tc.src); got != tc.want {
				t.Fatalf("interval %d, want %d", got, tc.want)
			}
		})
	}
	t.Run("73 ProfileAlignmentFixup after a set", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		p := e.process(privileged())
		st, err := p.MainThread().NtSetIntervalProfile(1234, nt.ProfileAlignmentFixup)
		e.mustStatus(StatusSuccess, st, err)
		if got := e.queryInterval(e.th, nt.ProfileAlignmentFixup); got != 1234 {
			t.Fatalf("got %d", got)
		}
	})
	for _, tc := range []struct {
		name string
		ptr  func(e *env) uint64
		want Status
	}{
		{"74 kernel-space pointer", func(e *env) uint64 { return kernelBase }, StatusAccessViolation},
		{"74 read-only pointer", func(e *env) uint64 { a, _ := e.p.Alloc(4, ProtRead); return a }, StatusAccessViolation},
		{"74 ULONG straddling into the guard page", func(e *env) uint64 { return e.alloc(e.p, 0x1000) + 0xFFE }, StatusAccessViolation},
		{"unaligned pointer is fine", func(e *env) uint64 { return e.alloc(e.p, 8) + 1 }, StatusSuccess},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "10.0.19041", "")
			st, err := e.th.NtQueryIntervalProfile(nt.ProfileTime, tc.ptr(e))
			e.mustStatus(tc.want, st, err)
		})
	}
	t.Run("a write that faults after the probe still succeeds", func(t *testing.T) {
		hal := NewTestHAL("apic", nt.ProfileTime)
		e := newEnv(t, "10.0.19041", "", withHALs(hal))
		ptr := e.alloc(e.p, 4)
		hal.OnQuery = func([]int, nt.Source) { _ = e.p.Free(ptr) }
		st, err := e.th.NtQueryIntervalProfile(nt.ProfileTime, ptr)
		e.mustStatus(StatusSuccess, st, err)
	})
	t.Run("kernel-mode bad pointer is bug check 0x50", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		k, _ := e.m.NewKernelCaller(1)
		_, err := k.NtQueryIntervalProfile(nt.ProfileTime, kernelBase+0x123)
		bc, ok := err.(*BugCheck)
		if !ok || bc.Code != nt.PAGE_FAULT_IN_NONPAGED_AREA || bc.Params[0] != kernelBase+0x123 || bc.Params[1] != 1 {
			t.Fatalf("got %v", err)
		}
	})
}

// TestSetInterval covers items 75–81.
func TestSetInterval(t *testing.T) {
	t.Run("75 no privilege from 6.2", func(t *testing.T) {
		for _, v := range []string{"6.2", "10.0.19041"} {
			e := newEnv(t, v, "")
			n := len(e.m.HALLog())
			st, err := e.th.NtSetIntervalProfile(5000, nt.ProfileTime)
			e.mustStatus(StatusPrivilegeNotHeld, st, err)
			if len(e.m.HALLog()) != n {
				t.Fatal("the HAL was called")
			}
			if got := e.queryInterval(e.th, nt.ProfileTime); got != 39063 {
				t.Fatalf("%s: interval changed to %d", v, got)
			}
		}
	})
	t.Run("76 6.1 needs no privilege", func(t *testing.T) {
		e := newEnv(t, "6.1", "")
		st, err := e.th.NtSetIntervalProfile(5000, nt.ProfileTime)
		e.mustStatus(StatusSuccess, st, err)
		if got := e.queryInterval(e.th, nt.ProfileTime); got != 5000 {
			t.Fatalf("got %d", got)
		}
	})
	t.Run("77 unsupported source succeeds", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		p := e.process(privileged())
		st, err := p.MainThread().NtSetIntervalProfile(5000, nt.ProfilePipelineDry)
		e.mustStatus(StatusSuccess, st, err)
		rows := e.m.HALLog()
		if len(rows) != 4 || rows[0].HAL != "" {
			t.Fatalf("rows %+v, want four unowned set rows", rows)
		}
	})
	t.Run("78 ProfileAlignmentFixup does not call the HAL", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		p := e.process(privileged())
		st, err := p.MainThread().NtSetIntervalProfile(77, nt.ProfileAlignmentFixup)
		e.mustStatus(StatusSuccess, st, err)
		if n := len(e.m.HALLog()); n != 0 {
			t.Fatalf("%d HAL calls", n)
		}
	})
	t.Run("79 one HAL set per active processor", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "", withCPUs(3))
		p := e.process(privileged())
		p.MainThread().cpu = 2
		st, err := p.MainThread().NtSetIntervalProfile(70000, nt.ProfileTotalIssues)
		e.mustStatus(StatusSuccess, st, err)
		rows := e.m.HALLog()
		if len(rows) != 3 {
			t.Fatalf("rows %+v", rows)
		}
		for i, r := range rows {
			if r.CPU != i || r.Call != "set" || r.Class != 0 || r.Interval != 70000 || r.HAL != "pmu" || r.Source != nt.ProfileTotalIssues {
				t.Fatalf("row %d: %+v", i, r)
			}
		}
	})
	for _, tc := range []struct {
		name   string
		src    nt.Source
		set    uint32
		errata uint32
		want   uint32
	}{
		{"80 ProfileTime set then query", nt.ProfileTime, 20000, 0, 20000},
		{"80 clamped to the minimum", nt.ProfileTime, 1, 0, 1221},
		{"80 clamped to the maximum", nt.ProfileTime, 0xFFFFFFFF, 0, 10_000_000},
		{"82 counter minimum", nt.ProfileCacheMisses, 100, 0, 4096},
		{"81 cache errata keeps its interval", nt.ProfileTime, 1_000_000, 5000, 5000},
		{"81 cache errata allows a shorter interval", nt.ProfileTime, 2000, 5000, 2000},
		{"81 cache errata does not touch counters", nt.ProfileCacheMisses, 1_000_000, 5000, 1_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "10.0.19041", "", withErrata(tc.errata))
			p := e.process(privileged())
			st, err := p.MainThread().NtSetIntervalProfile(tc.set, tc.src)
			e.mustStatus(StatusSuccess, st, err)
			if got := e.queryInterval(p.MainThread(), tc.src); got != tc.want {
				t.Fatalf("interval %d, want %d", got, tc.want)
			}
			if tc.src == nt.ProfileTime && e.m.TimeInterval() != tc.want {
				t.Fatalf("kernel's time interval %d, want %d", e.m.TimeInterval(), tc.want)
			}
		})
	}
	t.Run("3.10 sets the timer without an information class", func(t *testing.T) {
		e := newEnv(t, "3.10", "x86")
		st, err := e.th.NtSetIntervalProfile(20000, nt.ProfileCacheMisses)
		e.mustStatus(StatusSuccess, st, err)
		rows := e.m.HALLog()
		if len(rows) != 4 || rows[0].Class != -1 || rows[0].Source != nt.ProfileTime {
			t.Fatalf("rows %+v", rows)
		}
		if got := e.queryInterval(e.th, nt.ProfileTime); got != 20000 {
			t.Fatalf("got %d", got)
		}
	})
}

// TestSetIntervalEvent covers items 83–85.
func TestSetIntervalEvent(t *testing.T) {
	setEvents := func(s *TraceSession) []Event {
		var out []Event
		for _, ev := range s.Events() {
			if ev.Hook == nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL {
				out = append(out, ev)
			}
		}
		return out
	}
	t.Run("83 tracing on: one event with old and new", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		s, err := e.m.StartKernelLogger(true)
		if err != nil {
			t.Fatal(err)
		}
		p := e.process(privileged())
		st, err := p.MainThread().NtSetIntervalProfile(100, nt.ProfileTime)
		e.mustStatus(StatusSuccess, st, err)
		evs := setEvents(s)
		if len(evs) != 1 || evs[0].Source != 0 || evs[0].OldInterval != 39063 || evs[0].NewInterval != 1221 {
			t.Fatalf("events %+v", evs)
		}
	})
	t.Run("84 tracing turned on during the set: Old is 0", func(t *testing.T) {
		hal := NewTestHAL("apic", nt.ProfileTime)
		e := newEnv(t, "10.0.19041", "", withHALs(hal))
		var s *TraceSession
		hal.OnSet = func([]int, nt.Source) {
			if s == nil {
				var err error
				if s, err = e.m.StartKernelLogger(true); err != nil {
					t.Fatal(err)
				}
			}
		}
		p := e.process(privileged())
		st, err := p.MainThread().NtSetIntervalProfile(20000, nt.ProfileTime)
		e.mustStatus(StatusSuccess, st, err)
		evs := setEvents(s)
		if len(evs) != 1 || evs[0].OldInterval != 0 || evs[0].NewInterval != 20000 {
			t.Fatalf("events %+v", evs)
		}
	})
	t.Run("84 through the machine's HAL-call hook", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		var s *TraceSession
		var seen []string
		e.m.OnHALCall(func(call, hal string, src nt.Source, cpus []int) error {
			seen = append(seen, fmt.Sprintf("%s %s %d %v", call, hal, src, cpus))
			if call == "set" && s == nil {
				var err error
				s, err = e.m.StartKernelLogger(true) // its own HAL calls do not re-run the hook
				return err
			}
			return nil
		})
		p := e.process(privileged())
		st, err := p.MainThread().NtSetIntervalProfile(20000, nt.ProfileTime)
		e.mustStatus(StatusSuccess, st, err)
		evs := setEvents(s)
		if len(evs) != 1 || evs[0].OldInterval != 0 || evs[0].NewInterval != 20000 {
			t.Fatalf("events %+v", evs)
		}
		if want := []string{"set apic 0 [0 1 2 3]", "query apic 0 [0]"}; !slices.Equal(seen, want) { // the set, then its re-query
			t.Errorf("hook saw %q, want %q", seen, want)
		}
		e.m.OnHALCall(func(string, string, nt.Source, []int) error { return errors.New("scenario bug") })
		if _, err := p.MainThread().NtSetIntervalProfile(30000, nt.ProfileTime); err == nil || !strings.Contains(err.Error(), "scenario bug") || e.m.Err() == nil {
			t.Errorf("a failing hook: %v; the machine must stop", err)
		}
	})
	t.Run("the hook sees the calls for a source no HAL supports, as HALLog logs them", func(t *testing.T) {
		e := newEnv(t, "6.1", "")
		var seen []string
		e.m.OnHALCall(func(call, hal string, src nt.Source, cpus []int) error {
			seen = append(seen, fmt.Sprintf("%s %q %d %v", call, hal, src, cpus))
			return nil
		})
		p := e.process(privileged())
		from := len(e.m.HALLog())
		st, err := p.MainThread().NtSetIntervalProfile(20000, nt.ProfilePipelineDry)
		e.mustStatus(StatusSuccess, st, err)
		var logged []string
		for _, c := range e.m.HALLog()[from:] {
			logged = append(logged, fmt.Sprintf("%s %q %d", c.Call, c.HAL, c.Source))
		}
		if len(seen) == 0 || len(logged) == 0 || !strings.HasPrefix(seen[0], logged[0]) {
			t.Errorf("hook saw %q; HALLog has %q", seen, logged)
		}
		for _, s := range seen {
			if !strings.Contains(s, ` "" 3 `) {
				t.Errorf("hook saw %q, want hal \"\" and source 3", s)
			}
		}
	})
	t.Run("85 tracing off: no event", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		s, _ := e.m.StartKernelLogger(false)
		p := e.process(privileged())
		st, err := p.MainThread().NtSetIntervalProfile(20000, nt.ProfileTime)
		e.mustStatus(StatusSuccess, st, err)
		if evs := setEvents(s); len(evs) != 0 {
			t.Fatalf("events %+v", evs)
		}
		// and profile tracing that was stopped before the set
		s.Stop()
		s2, _ := e.m.StartKernelLogger(true)
		s2.Stop()
		st, err = p.MainThread().NtSetIntervalProfile(30000, nt.ProfileTime)
		e.mustStatus(StatusSuccess, st, err)
		if evs := setEvents(s2); len(evs) != 0 {
			t.Fatalf("events after stop %+v", evs)
		}
	})
	t.Run("6.0 has the event, 5.2 does not", func(t *testing.T) {
		for _, tc := range []struct {
			v    string
			want int
		}{{"6.0", 1}, {"5.2", 0}} {
			e := newEnv(t, tc.v, "")
			s, err := e.m.StartKernelLogger(true)
			if err != nil {
				t.Fatal(err)
			}
			e.th.NtSetIntervalProfile(20000, nt.ProfileTime)
			if n := len(setEvents(s)); n != tc.want {
				t.Fatalf("%s: %d events", tc.v, n)
			}
		}
	})
}
