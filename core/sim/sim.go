// Package sim is proflab's execution engine: it simulates the hardware of
// every processor of one machine (local APIC timers, performance counters
// with overflow and skid, PEBS writing records into the DS save area) as
// the HALs programmed it, runs a workload on the processors with a
// scheduler, raises profile interrupts and delivers them to the kernel
// model through KeProfileInterruptWithSource, and keeps the ground truth.
//
// Execution is event-driven and costs what it observes: the work of a run
// is proportional to its events (timer fires, counter overflows, PEBS
// records, scheduling decisions, hook batches) and to the number of
// functions, not to the segments executed in between. A busy processor
// runs a thread's segments, independent draws of a function (the
// thread's own, an ISR's or a DPC's) by weight; segment types that
// advance the processor alike (instructions, CPI, events per instruction
// of every enabled counter) form a class. Between two events the engine
// draws how many of the whole segments that fit fell in each class (a
// multinomial draw; none with one class), finds the next counter overflow
// by arithmetic on the class's event rates, and draws the function of
// the segment in progress only when an event observes it. Which
// functions the other segments ran is drawn once, per class, when the
// thread leaves the processor, and added to the truth as counts; the
// whole segments whose function an event drew are counted too and
// committed then, one segment's events after another (the same float
// additions, in the same order, as at each segment's end). Files:
// prepare.go (workload preparation), prepared.go and cache.go (prepared
// workloads and their cache), scheduler.go, loop.go (the event loop),
// execute.go (segments), classes.go (classes), stacks.go (calling
// contexts), binomial.go (count draws), hardware.go and timers.go (timer
// and counter hardware), pebs.go (PEBS buffers), deliver.go (delivery
// and accounting), result.go (truth), progress.go.
//
// The counts have the distribution the segment-stepping engine it
// replaced gave (runs of that engine are recorded in core/lab's
// testdata/engine, and core/lab's TestEngine tests hold this one to them
// within their sampling error); the random draws differ, so a seed's
// numbers differ from that engine's.
// The same seed and the same calls give the same results, bit for bit,
// on any architecture: a product that feeds a sum is rounded explicitly
// (float64(x*y) + z), since Go may fuse x*y + z into one multiply-add on
// arm64 and other platforms and round once where amd64 rounds twice
// (.ci/portable checks every package for fused multiply-adds).
//
// A Sim is the hardware the machine's HALs program (its [Sim.Apply] is
// the plugin host's Hardware): make it first, hand it to the HALs as they
// are opened, then [Sim.Attach] the machine built on them. The lab's
// composition root (core/lab) does this; the simulator imports no plugin
// host, gRPC or Lua (imports_test.go keeps it so).
// A Sim is used by one goroutine at a time (like its machine).
//
// # Prepared workloads
//
// Before any simulated time, a run derives from its workload what
// depends on the workload and the machine's architecture alone: the
// resolution ([workload.Spec.Resolve]), the functions as the engine
// executes them, each thread's segment types, each stack's frame
// references, and the types' classes for each list of enabled counters.
// For an imported workload of 5,000 functions and 30,000 stacks that is
// some 60 ms of processor time. [Sim.RunContext] makes it for its run;
// [Sim.RunCached] takes it from a [Cache], where the first run that gave
// the workload's content key (a workload file's path, sha256 and
// architecture) made it, so the runs after it pay only for their simulated time. What
// a Cache keeps does not change once made and holds no run's state (the
// run's truth, its deferred segments and its stacks not yet drawn are
// the run's, and so are the workload's process handles), so the runs of
// a sweep's workers share it. A run's results are the same, bit for
// bit, with the cache or without it, cold or warm. A Cache keeps at most
// 8 workloads and its bound of estimated memory (core/scenario gives the
// process's 256 MiB), least recently used first out, and at most 64
// class sets per workload.
//
// # Choices
//
// Where the reference and the workload are silent, the simulator chooses
// (the workload's defaults are in core/workload):
//
//   - Instructions are 4 bytes unless the workload says otherwise; a
//     thread's quantum is 10 ms; a thread runs 10,000 instructions of one
//     function before the next is drawn by weight.
//   - A built-in ntoskrnl.exe image holds KiIdleLoop, KiInterruptDispatch
//     and KiRetireDpcList, where idle, ISR and DPC time is attributed.
//     Idle processors are halted: no instructions or events, but timers
//     fire, and interrupts arrive with the idle context (thread id 0).
//   - Truth: "cycles" is elapsed processor time; the bucket truth of a
//     ProfileTime profile is time, of a counter profile its events. Per
//     bucket truth is each function's expected share of its address
//     distribution, and event counts are expected values (floats).
//   - Skid moves the reported IP forward by whole instructions, spilling
//     into the code that follows the function (inside a loop it wraps to
//     the loop's start). PEBS reports the exact IP, writes a record at
//     PebsIndex, interrupts at the threshold, and the counter reloads from
//     the DS CounterReset value; without a control area on the processor
//     nothing is delivered and the run log says why.
//   - A run covers [start, end) of simulated time: a timer that fires
//     exactly at the end is delivered at the start of the next run.
//   - A busy processor executes ahead to its next event; what another
//     processor's event changes on it (a HAL reprogramming its counters
//     from an interrupt hook) takes effect from its next event, as with
//     the segment-stepping engine, where it took effect from the
//     processor's last step.
//   - A PEBS record delivered at the threshold reports the mode, ISR and
//     DPC flags of the code that wrote it (the old engine used the mode of
//     the code running at the threshold).
//   - Scheduling decisions are reported (ObserveSchedule) when the thread
//     on a processor changes, in 100 ns units.
package sim

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/kernel"
)

// Driver is the simulator's view of a HAL: the software that drives one
// bank of the simulated hardware, which the hardware asks for timer
// refills, tells about control areas and hands interrupt-hook batches.
// The plugin host's per-machine HAL implements it (core/lab checks so).
// (The kernel's view of a HAL is kernel.HALDispatch; the contract a HAL
// plugin implements is hal.HAL; the hardware the HALs program is the
// plugin host's Hardware, which a Sim implements.)
type Driver interface {
	Name() string
	Abilities() hal.Abilities
	RefillTimer(cpus []int) error
	ControlArea(cpus []int, present bool) error
	Interrupts(batch []hal.Interrupt) error
	// Settle applies the programming of every call the HAL (and the other
	// HALs of its machine) sent without waiting for its answer, and
	// returns the HAL's failure, if it has failed. A run settles its HALs
	// before the processors run.
	Settle() error
}

// Options configure a Sim.
type Options struct {
	// Seed seeds the simulator's generator (the machine's seed).
	Seed uint64
	// FreqMHz is the processors' clock, which converts the HALs' periods
	// (100 ns units) to cycles. Zero takes the attached machine's
	// (kernel.Config.FreqMHz); give it when HALs program the simulator
	// before Attach.
	FreqMHz int
	// Logger, if set, also receives the run log's lines.
	Logger *slog.Logger
}

// Sim simulates one machine's processors.
type Sim struct {
	mu   sync.Mutex // Apply may be called while HALs are opened concurrently
	opts Options
	rng  prng

	m     *kernel.Machine
	hals  []Driver
	ncpu  int
	freq  uint64 // MHz
	now   uint64 // cycles since the machine was created
	banks []*bank

	cpus      []*cpuRun // during a run
	refilling bool
	inRun     atomic.Bool // a Run is in progress
	hwGen     uint64      // counts Apply calls: processors rebuild what depends on their counters
	dsDirty   bool
	caPresent []bool

	log     []string
	results []*Result

	schedObs []func(Switch)
	running  []uint32 // per processor, the thread id last reported running
}

// Switch is one of the scheduler's decisions: from Time on, processor
// CPU runs thread Thread of process Process (both 0: the idle loop).
type Switch struct {
	// Time is simulated time in 100 ns units since the machine was
	// created.
	Time            uint64
	CPU             int
	Process, Thread uint32
}

// ObserveSchedule has fn called with every change of the thread running
// on a processor during runs, in time order; at the end of each run
// every processor reports the idle loop. (The output's trace draws
// thread-run slices from it.)
func (s *Sim) ObserveSchedule(fn func(Switch)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.schedObs = append(s.schedObs, fn)
}

// reportSwitch tells the schedule observers that cpu runs th (nil: idle)
// from cycle t, if that changed.
func (s *Sim) reportSwitch(cpu int, t uint64, proc, thread uint32) {
	if len(s.schedObs) == 0 {
		return
	}
	for len(s.running) < s.ncpu {
		s.running = append(s.running, 0)
	}
	if s.running[cpu] == thread {
		return
	}
	s.running[cpu] = thread
	sw := Switch{Time: s.time100ns(t), CPU: cpu, Process: proc, Thread: thread}
	for _, fn := range s.schedObs {
		fn(sw)
	}
}

// Seed is the seed the simulator was made with (Options.Seed).
func (s *Sim) Seed() uint64 { return s.opts.Seed }

// New returns a simulator whose hardware is not yet attached to a machine:
// HALs may program it (Apply) before [Sim.Attach].
func New(opts Options) *Sim {
	return &Sim{opts: opts, freq: uint64(max(opts.FreqMHz, 0)), rng: newPRNG(opts.Seed, opts.Seed^0x9E3779B97F4A7C15)}
}

// Attach connects the simulator to the machine built on the HALs it
// serves. hals are the machine's HALs (for refills, control-area notices
// and interrupt hooks); any of them may be nil-capable (no abilities).
func (s *Sim) Attach(m *kernel.Machine, hals []Driver) error {
	if s.m != nil {
		return errors.New("sim: already attached to a machine")
	}
	if m == nil {
		return errors.New("sim: attach to a nil machine")
	}
	freq := uint64(max(m.Config().FreqMHz, 0))
	switch {
	case freq == 0 && s.freq == 0:
		return errors.New("sim: the machine has no clock frequency (kernel.Config.FreqMHz)")
	case freq == 0:
		freq = s.freq
	case s.freq != 0 && s.freq != freq:
		return fmt.Errorf("sim: the simulator runs at %d MHz, the machine at %d MHz", s.freq, freq)
	}
	s.m, s.hals, s.ncpu = m, hals, m.CPUCount()
	s.freq = freq
	s.caPresent = make([]bool, s.ncpu)
	for _, b := range s.banks {
		b.ensure(s.ncpu)
	}
	return nil
}

// Machine returns the attached machine (nil before Attach).
func (s *Sim) Machine() *kernel.Machine { return s.m }

// Results returns every run's result so far, oldest first.
func (s *Sim) Results() []*Result { return append([]*Result(nil), s.results...) }

// Log returns the simulator's log lines so far (HAL programming logs, why
// nothing was delivered somewhere).
func (s *Sim) Log() []string { return append([]string(nil), s.log...) }

func (s *Sim) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	s.log = append(s.log, line)
	if s.opts.Logger != nil {
		s.opts.Logger.Info(line)
	}
}

// cycles100ns converts 100 ns units to cycles.
func (s *Sim) cycles100ns(t uint64) uint64 {
	return t * s.freq / 10
}

// time100ns converts cycles to 100 ns units (rounded down).
func (s *Sim) time100ns(c uint64) uint64 { return c * 10 / s.freq }

// syncedNow is the current cycle, caught up with the machine's clock if
// something else advanced it.
func (s *Sim) syncedNow() uint64 {
	if s.m != nil && s.cpus == nil {
		if c := s.cycles100ns(s.m.Now()); c > s.now {
			s.now = c
		}
	}
	return s.now
}
