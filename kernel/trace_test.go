package kernel

import (
	"encoding/binary"
	"reflect"
	"slices"
	"testing"
	"unicode/utf16"

	"github.com/proflab/proflab/kernel/nt"
)

// TestSampledProfileEvents covers item 99.
func TestSampledProfileEvents(t *testing.T) {
	for _, v := range []string{"5.1", "6.1", "6.2", "10.0.19041"} {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t, v, "")
			s, err := e.m.StartKernelLogger(true)
			if err != nil {
				t.Fatal(err)
			}
			for c := 0; c < 4; c++ {
				if !e.m.Running(nt.ProfileTime, c) {
					t.Fatalf("ProfileTime not started on cpu %d", c)
				}
			}
			e.m.Advance(100)
			must(t, e.m.ProfileInterrupt(Interrupt{CPU: 2, Source: nt.ProfileTime, IP: 0x401234, Thread: e.th, ExecutingDPC: true}))
			must(t, e.m.ProfileInterrupt(Interrupt{CPU: 1, Source: nt.ProfileTotalIssues, IP: 0x401234, Thread: e.th}))
			must(t, e.m.ProfileInterrupt(Interrupt{CPU: 0, Source: nt.ProfileTime, IP: kernelBase, ExecutingISR: true}))
			evs := s.Events()
			if len(evs) != 2 {
				t.Fatalf("events %+v", evs)
			}
			want := Event{Hook: nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE, CPU: 2, Time: 100, InstructionPointer: 0x401234, ThreadId: e.th.ID(), Count: 1, ExecutingDpc: true}
			if !reflect.DeepEqual(evs[0], want) {
				t.Fatalf("event %+v, want %+v", evs[0], want)
			}
			if evs[1].ThreadId != 0 || !evs[1].ExecutingIsr || evs[1].InstructionPointer != kernelBase&e.m.lay.ptrMask {
				t.Fatalf("idle event %+v", evs[1])
			}
			must(t, s.Stop())
			if e.m.Running(nt.ProfileTime, 0) {
				t.Fatal("ProfileTime still running after the logger stopped")
			}
			must(t, e.m.ProfileInterrupt(Interrupt{CPU: 2, Source: nt.ProfileTime, IP: 1}))
			if len(s.Events()) != 2 {
				t.Fatal("event after stop")
			}
			if _, err := e.m.StartKernelLogger(true); err != nil {
				t.Fatal(err)
			}
			if _, err := e.m.StartKernelLogger(false); err != ErrLoggerRunning {
				t.Fatalf("second logger: %v", err)
			}
		})
	}
	if _, err := newEnv(t, "5.0", "").m.StartKernelLogger(true); err == nil {
		t.Fatal("5.0 has no sampled-profile events")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestTraceQueryInterval covers item 105.
func TestTraceQueryInterval(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	buf := e.alloc(e.p, 0x100)
	rl := e.alloc(e.p, 4)
	query := func(session uint64, src uint32, length uint32) uint32 {
		_ = e.p.Write(buf, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, src), 0xEEEE))
		r, err := e.th.TraceQueryInformation(session, nt.TraceSampledProfileIntervalInfo, buf, length, rl)
		must(t, err)
		return r
	}
	n := len(e.m.HALLog())
	if r := query(0, 0, 8); r != nt.ErrorSuccess || e.readU32s(e.p, buf+4, 1)[0] != 39063 {
		t.Fatalf("source 0: %d %v", r, e.readU32s(e.p, buf, 2))
	}
	if len(e.m.HALLog()) != n {
		t.Fatal("105 source 0 took the HAL (NtQueryIntervalProfile) path")
	}
	if r := query(0, uint32(nt.ProfileCacheMisses), 8); r != nt.ErrorSuccess || e.readU32s(e.p, buf+4, 1)[0] != 65536 {
		t.Fatalf("source 10: %d", r)
	}
	if rows := e.m.HALLog()[n:]; len(rows) != 1 || rows[0].Call != "query" || rows[0].Source != nt.ProfileCacheMisses {
		t.Fatalf("105 non-zero source rows %+v", rows)
	}
	if r := query(1, 0, 8); r != nt.ErrorInvalidParameter {
		t.Fatalf("session 1: %d", r)
	}
	if r := query(0, 0, 12); r != nt.ErrorBadLength {
		t.Fatalf("length 12: %d", r)
	}
	// set through class 5 needs the privilege (the source-0 path too)
	r, err := e.th.TraceSetInformation(0, nt.TraceSampledProfileIntervalInfo, buf, 8)
	must(t, err)
	if r != nt.ErrorPrivilegeNotHeld {
		t.Fatalf("unprivileged set: %d", r)
	}
	p := e.process(privileged())
	pb := e.alloc(p, 8)
	_ = p.Write(pb, []byte{0, 0, 0, 0, 0x20, 0x4E, 0, 0}) // ProfileTime, 20000
	if r, _ := p.MainThread().TraceSetInformation(0, nt.TraceSampledProfileIntervalInfo, pb, 8); r != nt.ErrorSuccess || e.m.TimeInterval() != 20000 {
		t.Fatalf("privileged set: %d, interval %d", r, e.m.TimeInterval())
	}
}

// TestTraceSourceList checks class 7: sizing, layout and order.
func TestTraceSourceList(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	rl := e.alloc(e.p, 4)
	r, err := e.th.TraceQueryInformation(0, nt.TraceProfileSourceListInfo, 0, 0, rl)
	must(t, err)
	need := e.readU32s(e.p, rl, 1)[0]
	if r != nt.ErrorBadLength || need == 0 || need%8 != 0 {
		t.Fatalf("sizing: %d, need %d", r, need)
	}
	buf := e.alloc(e.p, uint64(need))
	if r, _ := e.th.TraceQueryInformation(0, nt.TraceProfileSourceListInfo, buf, need, rl); r != nt.ErrorSuccess {
		t.Fatalf("query: %d", r)
	}
	raw := make([]byte, need)
	_ = e.p.Read(buf, raw)
	var got []nt.Source
	for off := uint32(0); ; {
		rec := raw[off:]
		src := nt.Source(binary.LittleEndian.Uint32(rec[4:]))
		got = append(got, src)
		var desc []uint16
		for i := 0x18; binary.LittleEndian.Uint16(rec[i:]) != 0; i += 2 {
			desc = append(desc, binary.LittleEndian.Uint16(rec[i:]))
		}
		if string(utf16.Decode(desc)) != src.Description() {
			t.Fatalf("description %q for %v", string(utf16.Decode(desc)), src)
		}
		if src == nt.ProfileTime && (binary.LittleEndian.Uint32(rec[8:]) != 1221 || binary.LittleEndian.Uint32(rec[12:]) != 10_000_000) {
			t.Fatal("ProfileTime bounds")
		}
		next := binary.LittleEndian.Uint32(rec[0:])
		if next == 0 {
			break
		}
		if next%8 != 0 {
			t.Fatal("record not 8-byte aligned")
		}
		off += next
	}
	if len(got) != 1+len(nt.IntelCounterSources) || got[0] != nt.ProfileTime {
		t.Fatalf("sources %v", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatal("not in source order")
		}
	}
}

// TestTraceSetClasses covers items 100–102 and 106 as far as the model
// goes.
func TestTraceSetClasses(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	buf := e.alloc(e.p, 0x100)
	set := func(session uint64, class uint32, b uint64, n uint32) uint32 {
		r, err := e.th.TraceSetInformation(session, class, b, n)
		must(t, err)
		return r
	}
	if r := set(0, nt.TraceProfileSourceConfigInfo, buf, 20); r != nt.ErrorIncorrectSize {
		t.Fatalf("106 five sources: %d", r)
	}
	if r := set(0, nt.TraceProfileSourceConfigInfo, buf, 0); r != nt.ErrorInvalidParameter {
		t.Fatalf("106 zero sources: %d", r)
	}
	if r := set(0xFFFF, nt.TracePmcCounterListInfo, buf, 8); r != nt.ErrorWMIInstanceNotFound {
		t.Fatalf("102 no logger: %d", r)
	}
	if _, err := e.m.StartKernelLogger(false); err != nil {
		t.Fatal(err)
	}
	if r := set(0xFFFF, nt.TracePmcCounterListInfo, buf, 8); r != nt.ErrorSuccess {
		t.Fatalf("counter list: %d", r)
	}
	if r := set(0xFFFF, nt.TracePmcCounterListInfo, buf, 8); r != nt.ErrorWMIAlreadyEnabled {
		t.Fatalf("101 second set: %d", r)
	}
	if r := set(0, nt.TraceSystemTraceEnableFlagsInfo+0x20, buf, 8); r != nt.ErrorNotSupported {
		t.Fatalf("unknown class: %d", r)
	}
	e61 := newEnv(t, "6.1", "")
	if r, _ := e61.th.TraceSetInformation(0, nt.TraceSampledProfileIntervalInfo, 0, 8); r != nt.ErrorNotSupported {
		t.Fatalf("6.1 class 5: %d", r)
	}
	if _, err := e61.th.TraceQueryInformation(0, nt.TraceSampledProfileIntervalInfo, 0, 8, 0); err == nil {
		t.Fatal("TraceQueryInformation exists from 6.2")
	}
}

// TestLoggerTimerReference: the NT Kernel Logger's use of ProfileTime is
// reference-counted per processor together with started profiles (the
// choice of docs/reference/tracing.md#in-the-model): it starts the timer
// only where it is not already running, and its stop leaves it running
// where a started profile still covers that processor.
func TestLoggerTimerReference(t *testing.T) {
	for _, v := range []string{"5.1", "6.1", "6.2", "10.0.19041"} {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t, v, "")
			timer := e.m.halFor(nt.ProfileTime).(*TestHAL)
			calls := func(from int, call string) (cpus []int) {
				for _, r := range e.m.HALLog()[from:] {
					if r.Call == call && r.Source == nt.ProfileTime {
						cpus = append(cpus, r.CPU)
					}
				}
				return cpus
			}
			// a profile on processor 0 only
			st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x100,
				BucketSize: 4, BufferSize: 0x40, Affinity: 1})
			e.mustStatus(StatusSuccess, st, nil)
			e.start(e.th, pr)
			n := len(e.m.HALLog())
			s, err := e.m.StartKernelLogger(true)
			if err != nil {
				t.Fatal(err)
			}
			if got := calls(n, "start"); !slices.Equal(got, []int{1, 2, 3}) {
				t.Errorf("the logger started the timer on %v, want [1 2 3] (0 was running for the profile)", got)
			}
			n = len(e.m.HALLog())
			if err := s.Stop(); err != nil {
				t.Fatal(err)
			}
			if got := calls(n, "stop"); !slices.Equal(got, []int{1, 2, 3}) {
				t.Errorf("the logger's stop stopped the timer on %v, want [1 2 3]", got)
			}
			if !timer.Running(nt.ProfileTime, 0) || timer.Running(nt.ProfileTime, 1) {
				t.Error("after the logger's stop the timer must run on 0 only, for the started profile")
			}
			// the other order: the logger first, then the profile
			s, _ = e.m.StartKernelLogger(true)
			n = len(e.m.HALLog())
			st, pr2 := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x100,
				BucketSize: 4, BufferSize: 0x40, Affinity: 2})
			e.mustStatus(StatusSuccess, st, nil)
			e.start(e.th, pr2)
			if got := calls(n, "start"); len(got) != 0 {
				t.Errorf("a profile started under the logger started the timer again on %v", got)
			}
			if st, err := e.th.NtStopProfile(pr2.handle); st != StatusSuccess || err != nil {
				t.Fatal(st, err)
			}
			if !timer.Running(nt.ProfileTime, 1) {
				t.Error("stopping the profile stopped the logger's timer on processor 1")
			}
			_ = s.Stop()
			if !timer.Running(nt.ProfileTime, 0) || timer.Running(nt.ProfileTime, 1) || timer.Running(nt.ProfileTime, 3) {
				t.Error("after both stops the timer must run on 0 only")
			}
		})
	}
}
