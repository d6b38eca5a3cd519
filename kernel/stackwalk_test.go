package kernel

import (
	"slices"
	"strings"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

// The kernel logger's stack walk: after each sampled-profile event of a
// thread, when the session walks that hook, a StackWalk event with the
// event's time, processor, process and thread and the callers' return
// addresses (pointer-masked, at most MaxStackWalkFrames with the IP);
// none for the idle context, none for a hook not asked for; the same on
// 6.1 (the event traced directly) as from 6.2 (through a callback object).
func TestStackWalk(t *testing.T) {
	for _, tc := range []struct{ version, arch string }{{"10.0.19041", ""}, {"6.1", "x86"}} {
		e := newEnv(t, tc.version, tc.arch)
		s, err := e.m.StartKernelLogger(true)
		if err != nil {
			t.Fatal(err)
		}
		must(t, s.SetStackWalk([]uint16{nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE}))
		if got := s.StackWalk(); !slices.Equal(got, []uint16{nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE}) {
			t.Errorf("%s: StackWalk() = %v", tc.version, got)
		}
		e.m.Advance(50)
		callers := []uint64{0xFFFFFFFF00401100, 0x402200}
		must(t, e.m.ProfileInterrupt(Interrupt{CPU: 1, Source: nt.ProfileTime, IP: 0x401234, Thread: e.th, Callers: callers}))
		must(t, e.m.ProfileInterrupt(Interrupt{CPU: 0, Source: nt.ProfileTime, IP: kernelBase, Callers: callers})) // idle: no walk
		long := make([]uint64, 500)
		must(t, e.m.ProfileInterrupt(Interrupt{CPU: 0, Source: nt.ProfileTime, IP: 0x401000, Thread: e.th, Callers: long}))
		evs := s.Events()
		if len(evs) != 5 {
			t.Fatalf("%s: %d events, want sample, walk, idle sample, sample, walk: %+v", tc.version, len(evs), evs)
		}
		w := evs[1]
		mask := e.m.lay.ptrMask
		if w.Hook != HookStackWalk || w.CPU != 1 || w.Time != 50 || w.ThreadId != e.th.ID() || w.ProcessId != e.p.ID() ||
			w.InstructionPointer != 0x401234 || !slices.Equal(w.Frames, []uint64{callers[0] & mask, callers[1]}) {
			t.Errorf("%s: walk %+v", tc.version, w)
		}
		if evs[2].Hook != nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE || evs[3].Hook != nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE {
			t.Errorf("%s: the idle sample has a walk: %+v", tc.version, evs[2:4])
		}
		if n := len(evs[4].Frames) + 1; n != MaxStackWalkFrames {
			t.Errorf("%s: a walk of 501 frames keeps %d, want %d", tc.version, n, MaxStackWalkFrames)
		}
		// the walk is the session's copy: the caller's slice may change
		callers[1] = 7
		if s.Events()[1].Frames[1] != 0x402200 {
			t.Errorf("%s: the walk aliases the interrupt's callers", tc.version)
		}
		must(t, s.SetStackWalk(nil))
		must(t, e.m.ProfileInterrupt(Interrupt{CPU: 1, Source: nt.ProfileTime, IP: 0x401234, Thread: e.th, Callers: callers}))
		if evs := s.Events(); evs[len(evs)-1].Hook == HookStackWalk {
			t.Errorf("%s: a walk with stack walking off", tc.version)
		}
	}
	e := newEnv(t, "10.0.19041", "")
	s, _ := e.m.StartKernelLogger(true)
	if err := s.SetStackWalk([]uint16{0x0524}); err == nil || !strings.Contains(err.Error(), "0x0524") {
		t.Errorf("stack walking of CSwitch: %v", err)
	}
	if started := s.Started(); started != 0 {
		t.Errorf("Started %d", started)
	}
	e.m.Advance(30)
	must(t, s.Stop())
	if at, stopped := s.Stopped(); !stopped || at != 30 {
		t.Errorf("Stopped %d %v", at, stopped)
	}
	if m := s.EverGroupMask(); s.GroupMask() != ([8]uint32{}) || m[1] != maskProfile {
		t.Errorf("a stopped profile session: GroupMask %x, EverGroupMask %x", s.GroupMask(), m)
	}
}

// PmcInterrupt: the counter interrupt's event is walked when asked for.
func TestStackWalkPMC(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	s := e.pmcSession([]uint16{nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT})
	must(t, e.m.ProfileInterrupt(Interrupt{CPU: 2, Source: nt.ProfileCacheMisses, IP: 0x401000, Thread: e.th, Callers: []uint64{0x402010}}))
	evs := s.Events()
	if len(evs) != 2 || evs[0].Hook != nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT || evs[1].Hook != HookStackWalk ||
		evs[1].InstructionPointer != 0x401000 || !slices.Equal(evs[1].Frames, []uint64{0x402010}) || evs[1].CPU != 2 {
		t.Fatalf("events %+v", evs)
	}
}
