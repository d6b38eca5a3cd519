// Package output writes a run's artefacts from the machines a scenario
// made: the bucket counts of every profile (CSV), a pprof profile per
// profile (with the workloads' function names), a Perfetto trace of the
// NT Kernel Logger's events and the scheduler's decisions, and a summary
// of interrupts for result.json. Everything it writes is a function of
// the run's configuration and seed: no clocks, no map order.
//
// A scenario run keeps a [Registry]: the Lua bindings add each machine
// (with its simulator) and each kernel logger session as they are made,
// and the runner hands the registry to [Write] at the end. A registered
// machine shows the registry each profile whose last handle the run
// closes, so the outputs keep every profile the run made, those a
// scenario or a tool (kernrate) closed included (profiles.go).
//
// # Long runs
//
// Memory does not grow with simulated time. From the moment a session
// is registered its events go, as the kernel emits them, through a 64 KiB
// buffer into a spool file (a temporary file unlinked at once), and so do
// the simulator's scheduling decisions; s:events() reads a session's
// spool back (the scenario API returns every event of a session, so a
// session's events are kept for as long as the scenario can ask: on disk,
// not in memory), and [Write] turns the spools into the trace file in one
// pass through bounded buffers. Nothing else keeps events: a run without
// --out holds in memory only the spool buffers.
//
// # The trace
//
// trace.perfetto-trace is Perfetto's own protobuf trace format, written
// by hand with protowire on one packet sequence with interned event names,
// argument names and argument strings: about 41 bytes per sampled-profile
// event (measured by TestTraceSize and .ci/scale), so a 60-second,
// 4-processor, 8192 Hz trace is about 81 MB. It is not compressed:
// Perfetto's trace processor also reads gzip, but the plain format is the
// one every Perfetto tool opens. Per machine it holds a track per
// processor ("CPU n", under the machine's track) with a slice for each
// time a thread ran there (named "<process> thread <n>", with ProcessId
// and ThreadId arguments), every logger event as an instant on the
// processor that took it with the event's fields as arguments
// (ExecutingIsr and ExecutingDpc present when true, Count when not 1);
// and a process track per NT process and a thread track per NT thread,
// with the NT ids as Perfetto's pid and tid (on machine k > 1, plus
// (k−1)·1,000,000, so that machines keep apart), whose slices say where
// the thread ran.
package output

import (
	"sync"

	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// Registry collects the machines and trace sessions of one run. It is
// safe for concurrent use; each run has its own.
type Registry struct {
	mu       sync.Mutex
	machines []*Machine
}

// Machine is one machine of the run.
type Machine struct {
	// Index is the machine's number in the run, from 1.
	Index int
	// Kernel is the machine.
	Kernel *kernel.Machine
	// Sim is its simulator (nil if it has none).
	Sim *sim.Sim
	// Sessions are the kernel logger sessions started on it.
	Sessions []*kernel.TraceSession

	spools   []*eventSpool   // each session's events, on disk
	switches *switchSpool    // the simulator's scheduling decisions, on disk
	closed   []closedProfile // the profiles deleted during the run (profiles.go)

	intervals map[nt.Source]uint32 // see Registry.Capture
}

// AddMachine registers a machine and its simulator (which may be nil).
func (r *Registry) AddMachine(m *kernel.Machine, s *sim.Sim) *Machine {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := newMachine(len(r.machines)+1, m)
	e.Sim = s
	if s != nil {
		e.switches = newSwitchSpool()
		s.ObserveSchedule(e.switches.add)
	}
	r.machines = append(r.machines, e)
	return e
}

// AddSession registers a kernel logger session of machine m. From then
// on the session keeps its events in a spool file (through a bounded
// buffer), where s.Events() and the trace writer read them back: a long
// session does not grow the memory.
func (r *Registry) AddSession(m *kernel.Machine, s *kernel.TraceSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := newEventSpool()
	s.SetStore(sp)
	for _, e := range r.machines {
		if e.Kernel == m {
			e.Sessions = append(e.Sessions, s)
			e.spools = append(e.spools, sp)
			return
		}
	}
	e := newMachine(len(r.machines)+1, m)
	e.Sessions, e.spools = []*kernel.TraceSession{s}, []*eventSpool{sp}
	r.machines = append(r.machines, e)
}

// newMachine is the registry's entry for machine m, number index, which
// from then on keeps the profiles the run closes (keepClosed).
func newMachine(index int, m *kernel.Machine) *Machine {
	e := &Machine{Index: index, Kernel: m}
	m.OnProfileClose(e.keepClosed)
	return e
}

// Close releases the spool files of the registry's sessions and
// schedules; their events can no longer be read. A nil registry is fine.
func (r *Registry) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.machines {
		for _, sp := range e.spools {
			sp.sp.close()
			sp.frames.close()
		}
		if e.switches != nil {
			e.switches.sp.close()
		}
	}
}

// Machines returns the registered machines in the order they were added.
func (r *Registry) Machines() []*Machine {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Machine(nil), r.machines...)
}

// Sim returns the simulator registered for m, or nil.
func (r *Registry) Sim(m *kernel.Machine) *sim.Sim {
	for _, e := range r.Machines() {
		if e.Kernel == m {
			return e.Sim
		}
	}
	return nil
}
