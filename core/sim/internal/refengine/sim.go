// Package refengine is the segment-stepping execution engine proflab
// shipped before issue 9, kept unchanged as a test-only reference: the
// equivalence tests of core/sim run the same workloads through it and
// through the new engine and compare the results within their sampling
// error. Nothing outside tests imports it.
//
// It steps every segment of every function (about 1.2 million per
// simulated second on 4 processors), which is why it was replaced.
package refengine

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/kernel"
)

// HAL is what the simulator needs of a machine's HAL for its own traffic:
// timer refills, control-area notices and interrupt-hook batches.
// *halhost.MachineHAL implements it.
type HAL interface {
	Name() string
	Abilities() hal.Abilities
	RefillTimer(cpus []int) error
	ControlArea(cpus []int, present bool) error
	Interrupts(batch []hal.Interrupt) error
}

// Options configure a Sim.
type Options struct {
	// Seed seeds the simulator's generator (the machine's seed).
	Seed uint64
	// Logger, if set, also receives the run log's lines.
	Logger *slog.Logger
}

// Sim simulates one machine's processors.
type Sim struct {
	mu   sync.Mutex // Apply may be called while HALs are opened concurrently
	opts Options
	rng  *rand.Rand

	m     *kernel.Machine
	hals  []HAL
	ncpu  int
	freq  uint64 // MHz
	now   uint64 // cycles since the machine was created
	banks []*bank

	cpus      []*cpuRun // during a run
	refilling bool
	dsDirty   bool
	caPresent []bool

	log     []string
	results []*Result
}

// New returns a simulator whose hardware is not yet attached to a machine:
// HALs may program it (Apply) before [Sim.Attach].
func New(opts Options) *Sim {
	return &Sim{opts: opts, rng: rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9E3779B97F4A7C15))}
}

// Attach connects the simulator to the machine built on the HALs it
// serves. hals are the machine's HALs (for refills, control-area notices
// and interrupt hooks); any of them may be nil-capable (no abilities).
func (s *Sim) Attach(m *kernel.Machine, hals []HAL) error {
	if s.m != nil {
		return errors.New("sim: already attached to a machine")
	}
	if m == nil {
		return errors.New("sim: attach to a nil machine")
	}
	s.m, s.hals, s.ncpu = m, hals, m.CPUCount()
	s.freq = uint64(m.Config().FreqMHz)
	if s.freq == 0 {
		s.freq = 3000
	}
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
	f := s.freq
	if f == 0 {
		f = 3000
	}
	return t * f / 10
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
