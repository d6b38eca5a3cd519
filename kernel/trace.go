package kernel

import (
	"errors"
	"fmt"

	"github.com/proflab/proflab/kernel/nt"
)

// Event is one event of the NT Kernel Logger. Hook says which fields
// matter: 0x0F2E (sampled profile) uses InstructionPointer, ThreadId,
// Count, ExecutingIsr and ExecutingDpc; 0x0F48 (set interval) uses
// Source, NewInterval and OldInterval.
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
}

// TraceSession is a run of the NT Kernel Logger.
type TraceSession struct {
	m       *Machine
	profile bool
	running bool
	events  []Event
	pmc     []nt.Source // counter sources set through TracePmcCounterListInfo
	remove  func()
}

// ErrLoggerRunning is returned when the NT Kernel Logger is started twice.
var ErrLoggerRunning = errors.New("the NT Kernel Logger is already running: stop it first")

// StartKernelLogger starts the NT Kernel Logger, with
// EVENT_TRACE_FLAG_PROFILE if profile is true. Profile events start the
// ProfileTime interrupt on every processor (through the sampled-profile
// callback object from 6.2).
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
	s := &TraceSession{m: m, profile: profile, running: true}
	m.logger = s
	m.sessions++
	if profile {
		if m.ver.hasCallbackObjects() {
			s.remove, _ = m.AddCallbackObject(nt.ProfileTime, func(in Interrupt) { m.traceSampledProfile(&in) })
		}
		if err := m.acquireSource(nt.ProfileTime, m.activeMask()); err != nil {
			return nil, err
		}
	}
	return s, nil
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
	s.running = false
	m.logger = nil
	if s.profile {
		if s.remove != nil {
			s.remove()
		}
		return m.releaseSource(nt.ProfileTime, m.activeMask())
	}
	return nil
}

// Running reports whether the session is still running.
func (s *TraceSession) Running() bool { return s.running }

// Profile reports whether the session traces sampled-profile events.
func (s *TraceSession) Profile() bool { return s.profile }

// Events returns every event so far, oldest first.
func (s *TraceSession) Events() []Event { return append([]Event(nil), s.events...) }

func (s *TraceSession) emit(e Event) { s.events = append(s.events, e) }

// KernelLogger returns the running NT Kernel Logger session, or nil.
func (m *Machine) KernelLogger() *TraceSession { return m.logger }

// profileTracing is PERF_PROFILE enabled in a running logger.
func (m *Machine) profileTracing() bool { return m.logger != nil && m.logger.profile }

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
}
