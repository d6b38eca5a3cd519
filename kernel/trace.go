package kernel

import (
	"errors"
	"fmt"

	"github.com/proflab/proflab/kernel/nt"
)

// Event is one event of the NT Kernel Logger. Hook says which fields
// matter: 0x0F2E (sampled profile) uses InstructionPointer, ThreadId,
// Count, ExecutingIsr and ExecutingDpc; 0x0F2F (PMC interrupt) uses
// InstructionPointer, ThreadId and ProfileSource; 0x0F48 (set interval)
// uses Source, NewInterval and OldInterval; 0x1820 (stack walk) uses
// ThreadId, ProcessId, InstructionPointer and Frames (stackwalk.go).
type Event struct {
	Hook uint16
	CPU  int
	Time uint64 // simulated time, 100 ns units

	InstructionPointer uint64
	ThreadId           uint32
	Count              uint16
	ExecutingIsr       bool
	ExecutingDpc       bool

	Source      uint32
	NewInterval uint32
	OldInterval uint32

	ProfileSource uint16 // 0x0F2F: the counter source that interrupted

	// ProcessId is a stack walk's StackProcess.
	ProcessId uint32
	// Frames are a stack walk's frames after its first (the sampled
	// event's InstructionPointer): return addresses, innermost first.
	// An EventStore must copy them: the session reuses the slice.
	Frames []uint64
}

// TraceSession is a run of the NT Kernel Logger.
type TraceSession struct {
	m       *Machine
	running bool
	events  []Event
	// store, when set, keeps the events instead of events.
	store EventStore
	// masks is the session's PERFINFO_GROUPMASK
	// (docs/reference/tracing.md#group-masks-and-enable-flags): PERF_PROFILE and
	// PERF_PMC_PROFILE live in masks[1].
	masks [8]uint32
	// pmcConfig are the sources chosen for PMC profiling
	// (EventTraceProfileConfigInformation); pmc the counters set with
	// EventTraceProfileCounterListInformation (once per run); pmcHooks
	// the events that carry counters; pebsHook the PEBS-index hook.
	pmcConfig []nt.Source
	pmc       []nt.Source
	pmcHooks  []uint16
	pebsHook  bool

	removeSampled func()
	removePMC     []func()
	pmcStarted    []nt.Source

	// stackHooks are the events whose stacks the logger walks
	// (stackwalk.go); frames is the walk's scratch.
	stackHooks []uint16
	frames     []uint64
	// started and stopped are when the session started and stopped
	// (stopped: 0 while it runs).
	started, stopped uint64
	// everMasks is the union of the group masks the session has had.
	everMasks [8]uint32
}

// KernelLoggerHandle is the TRACEHANDLE whose low 16 bits (the logger id,
// 0xFFFF) name the NT Kernel Logger.
const KernelLoggerHandle = 0xFFFF

// ErrLoggerRunning is returned when the NT Kernel Logger is started twice.
var ErrLoggerRunning = errors.New("the NT Kernel Logger is already running: stop it first")

// Group-mask bits in Masks[1] (docs/reference/tracing.md#group-masks-and-enable-flags).
const (
	maskProfile    = nt.PERF_PROFILE & 0x1FFFFFFF
	maskPMCProfile = nt.PERF_PMC_PROFILE & 0x1FFFFFFF
)

// StartKernelLogger starts the NT Kernel Logger, with
// EVENT_TRACE_FLAG_PROFILE (PERF_PROFILE in its group mask) if profile is
// true. Profile events start the ProfileTime interrupt on every processor
// (through the sampled-profile callback object from 6.2).
func (m *Machine) StartKernelLogger(profile bool) (*TraceSession, error) {
	if err := m.checkRunning(); err != nil {
		return nil, err
	}
	if !m.ver.hasKernelLogger() {
		return nil, fmt.Errorf("the NT Kernel Logger exists from 5.0; this machine models %s", m.ver)
	}
	if profile && !m.ver.hasSampledProfile() {
		return nil, fmt.Errorf("sampled-profile events (EVENT_TRACE_FLAG_PROFILE) exist from 5.1; this machine models %s", m.ver)
	}
	if m.logger != nil {
		return nil, ErrLoggerRunning
	}
	s := &TraceSession{m: m, running: true, started: m.now}
	m.logger = s
	m.sessions++
	if profile {
		var masks [8]uint32
		masks[1] = maskProfile
		if err := s.setMasks(masks); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// setMasks replaces the group mask and starts or stops what its profile
// bits control.
func (s *TraceSession) setMasks(masks [8]uint32) error {
	m := s.m
	old := s.masks
	s.masks = masks
	for i, v := range masks {
		s.everMasks[i] |= v
	}
	on := func(a [8]uint32, bit uint32) bool { return a[1]&bit != 0 }
	switch {
	case !on(old, maskProfile) && on(masks, maskProfile):
		if m.ver.hasCallbackObjects() {
			s.removeSampled, _ = m.AddCallbackObject(nt.ProfileTime, func(in Interrupt) { m.traceSampledProfile(&in) })
		}
		if err := m.acquireSource(nt.ProfileTime, m.activeMask()); err != nil {
			return err
		}
	case on(old, maskProfile) && !on(masks, maskProfile):
		if s.removeSampled != nil {
			s.removeSampled()
			s.removeSampled = nil
		}
		if err := m.releaseSource(nt.ProfileTime, m.activeMask()); err != nil {
			return err
		}
	}
	switch {
	case !on(old, maskPMCProfile) && on(masks, maskPMCProfile) && m.ver.hasCallbackObjects():
		for _, src := range s.pmcConfig {
			src := src
			remove, _ := m.AddCallbackObject(src, func(in Interrupt) { m.tracePMCInterrupt(&in, src) })
			s.removePMC = append(s.removePMC, remove)
			s.pmcStarted = append(s.pmcStarted, src)
			if err := m.acquireSource(src, m.activeMask()); err != nil {
				return err
			}
		}
	case on(old, maskPMCProfile) && !on(masks, maskPMCProfile):
		for _, remove := range s.removePMC {
			remove()
		}
		started := s.pmcStarted
		s.removePMC, s.pmcStarted = nil, nil
		for _, src := range started {
			if err := m.releaseSource(src, m.activeMask()); err != nil {
				return err
			}
		}
	}
	return nil
}

// Stop ends the session; its events stay readable.
func (s *TraceSession) Stop() error {
	if !s.running {
		return nil
	}
	m := s.m
	if err := m.checkRunning(); err != nil {
		return err
	}
	err := s.setMasks([8]uint32{})
	s.running = false
	s.stopped = m.now
	m.logger = nil
	return err
}

// GroupMask returns the session's PERFINFO_GROUPMASK.
func (s *TraceSession) GroupMask() [8]uint32 { return s.masks }

// EverGroupMask returns the union of the group masks the session has
// had, a stopped session's included (whose GroupMask is empty).
func (s *TraceSession) EverGroupMask() [8]uint32 { return s.everMasks }

// Running reports whether the session is still running.
func (s *TraceSession) Running() bool { return s.running }

// Profile reports whether the session traces sampled-profile events
// (PERF_PROFILE is in its group mask).
func (s *TraceSession) Profile() bool { return s.masks[1]&maskProfile != 0 }

// Events returns every event so far, oldest first.
func (s *TraceSession) Events() []Event {
	if s.store != nil {
		return s.store.Events()
	}
	return append([]Event(nil), s.events...)
}

// EventStore keeps a session's events for Events, outside the session
// (the lab's output spools them to a file, so that a long session's
// memory does not grow).
type EventStore interface {
	// Append keeps one event.
	Append(Event)
	// Events returns every event kept, oldest first.
	Events() []Event
	// Len is the number of events kept.
	Len() int
	// Cursor reads the events kept so far one by one, oldest first,
	// without holding them all.
	Cursor() EventCursor
}

// EventCursor reads a session's events one by one, oldest first.
type EventCursor interface {
	// Next returns the next event, or false at the end (or on a read
	// error, which Err then returns).
	Next() (Event, bool)
	// Err is why Next stopped early, or nil.
	Err() error
}

// Count is the number of events so far.
func (s *TraceSession) Count() int {
	if s.store != nil {
		return s.store.Len()
	}
	return len(s.events)
}

// Cursor reads the events so far one by one, oldest first: a session of
// millions of events is visited without holding them all.
func (s *TraceSession) Cursor() EventCursor {
	if s.store != nil {
		return s.store.Cursor()
	}
	return &sliceCursor{events: s.events[:len(s.events):len(s.events)]}
}

// sliceCursor is the cursor of a session that keeps its events itself.
type sliceCursor struct{ events []Event }

func (c *sliceCursor) Next() (Event, bool) {
	if len(c.events) == 0 {
		return Event{}, false
	}
	e := c.events[0]
	c.events = c.events[1:]
	return e, true
}

func (c *sliceCursor) Err() error { return nil }

// SetStore keeps the session's events in st from now on, moving those
// kept so far into it.
func (s *TraceSession) SetStore(st EventStore) {
	if s.store != nil {
		for _, e := range s.store.Events() {
			st.Append(e)
		}
	}
	for _, e := range s.events {
		st.Append(e)
	}
	s.events, s.store = nil, st
}

func (s *TraceSession) emit(e Event) {
	if s.store != nil {
		s.store.Append(e)
		return
	}
	if e.Frames != nil {
		e.Frames = append([]uint64(nil), e.Frames...)
	}
	s.events = append(s.events, e)
}

// KernelLogger returns the running NT Kernel Logger session, or nil.
func (m *Machine) KernelLogger() *TraceSession { return m.logger }

// profileTracing is PERF_PROFILE enabled in a running logger.
func (m *Machine) profileTracing() bool { return m.logger != nil && m.logger.Profile() }

// traceSampledProfile is the sampled-profile callback: hook 0x0F2E with
// PERFINFO_SAMPLED_PROFILE_INFORMATION.
func (m *Machine) traceSampledProfile(in *Interrupt) {
	if !m.profileTracing() {
		return
	}
	var tid uint32
	if in.Thread != nil {
		tid = in.Thread.id
	}
	m.logger.emit(Event{Hook: nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE, CPU: in.CPU, Time: m.now,
		InstructionPointer: in.IP, ThreadId: tid, Count: 1, ExecutingIsr: in.ExecutingISR, ExecutingDpc: in.ExecutingDPC})
	m.logger.walkStack(nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE, in)
}

// tracePMCInterrupt is the PMC-interrupt callback: hook 0x0F2F with
// PERFINFO_PMC_SAMPLE_INFORMATION.
func (m *Machine) tracePMCInterrupt(in *Interrupt, src nt.Source) {
	if m.logger == nil || m.logger.masks[1]&maskPMCProfile == 0 {
		return
	}
	var tid uint32
	if in.Thread != nil {
		tid = in.Thread.id
	}
	m.logger.emit(Event{Hook: nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT, CPU: in.CPU, Time: m.now,
		InstructionPointer: in.IP, ThreadId: tid, ProfileSource: uint16(src)})
	m.logger.walkStack(nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT, in)
}
