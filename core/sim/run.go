package sim

import (
	"context"
	"errors"
	"fmt"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/kernel"
)

// This file is a run: its state, and Run itself.

// tally is ground truth of one (context, processor, function).
type tally struct {
	instr  uint64
	cycles uint64
	ev     [nEvents]float64
}

// stackTally is a stack's truth during a run: what its leaf executed
// (a stack's events are its leaf's function's, from its instructions).
type stackTally struct {
	instr  uint64
	cycles uint64
}

// runState is one Run in progress.
type runState struct {
	ctx            context.Context
	s              *Sim
	rng            prng // s.rng, held here: a draw's state is one load nearer
	res            *Result
	w              *workload.Resolved
	spec           *workload.Spec // the run's workload (its Process.Proc handles are the run's)
	prep           *prepared
	fns            []fnInfo
	threads        []*thread
	ready          []*thread
	quantum        uint64
	segLen         uint64
	end            uint64
	ctxPID         []uint32     // context → process id (0: none)
	tallies        [][]tally    // per processor, per truth context and function
	tallyArena     []tally      // the tallies' one array (tallyPool's)
	stackTallies   []stackTally // per workload stack, over processors and processes
	stackHits      map[stackHitKey][]uint64
	lastHits       []uint64 // stackHits[lastHitKey]
	lastHitKey     stackHitKey
	nf             int
	cpus           []*cpuRun
	hooks          map[string][]hal.Interrupt
	halByNm        map[string]Driver
	stopErr        error
	classSets      map[classSetKey]*runClassSet
	classSetList   []*runClassSet // in the order first used (settleStacks)
	classBuild     classBuild
	bucketScratch  []BucketTruth // profileTruth's dense sums
	counts         []uint64      // scratch for multinomial draws
	probs          []float64     // scratch for multinomial draws
	events         uint64        // events handled (progress)
	wakeAt         uint64        // the earliest sleeping thread's wake (nextWake)
	prog           *progressState
	durationCycles uint64
	callSites      callSites // return addresses per calling context (callsites.go)
}

// Run runs w on the processors for durationUS more microseconds of
// simulated time, delivering the interrupts the programmed hardware
// raises. A bug check stops the run early (Result.BugCheck); a HAL failure
// or a bad workload is an error.
func (s *Sim) Run(durationUS uint64, w *workload.Spec) (*Result, error) {
	return s.RunContext(context.Background(), durationUS, w)
}

// RunContext is Run that stops with ctx's error when ctx ends (a run's
// wall-clock budget); the simulated time reached so far stays.
func (s *Sim) RunContext(ctx context.Context, durationUS uint64, w *workload.Spec) (*Result, error) {
	return s.RunCached(ctx, nil, "", durationUS, w)
}

// RunCached is RunContext for a workload whose content key says what it
// is (a workload file's path, sha256 and architecture:
// importer.Loaded.Key):
// the workload's resolution and classes come from c, made by the first
// run that needs them and shared by every run after it, in this process,
// that gives the same key (see [Cache]). Runs that give the same key
// must give workloads of the same content; only their processes' Proc
// handles may differ (they are the run's, never kept). A nil c or an
// empty key is RunContext. The results are the same, bit for bit, as
// RunContext's.
func (s *Sim) RunCached(ctx context.Context, c *Cache, key string, durationUS uint64, w *workload.Spec) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if s.m == nil {
		return nil, errors.New("sim: run before a machine is attached")
	}
	if w == nil {
		return nil, errors.New("sim: run needs a workload")
	}
	p, err := s.checkRun(durationUS, c, key, w)
	if err != nil {
		return nil, err
	}
	r := p.r
	s.inRun.Store(true)
	defer s.inRun.Store(false)
	s.syncedNow()
	rs := &runState{ctx: ctx, s: s, rng: s.rng, w: r, spec: w, prep: p, fns: p.fns, nf: len(r.Funcs), hooks: map[string][]hal.Interrupt{}, halByNm: map[string]Driver{}}
	for _, h := range s.hals {
		if h != nil {
			rs.halByNm[h.Name()] = h
		}
	}
	rs.quantum = max(1, r.Spec.QuantumUS*s.freq)
	rs.segLen = r.Spec.SegmentInstructions
	start := s.now
	rs.end = start + durationUS*s.freq
	rs.durationCycles = durationUS * s.freq
	rs.startProgress()
	rs.res = newResult(s, r, s.time100ns(start))
	logStart := len(s.log)
	if err := rs.setup(); err != nil {
		return nil, err
	}
	s.observeControlAreas()
	s.setupDS()
	rs.res.Intervals = s.programmedIntervals()
	rs.loop()
	rs.wrapUp()
	rs.account()
	rs.finish()
	rs.release()
	rs.endProgress()
	rs.res.End = s.m.Now()
	rs.res.Log = append([]string(nil), s.log[logStart:]...)
	s.results = append(s.results, rs.res)
	var bc *kernel.BugCheck
	if errors.As(rs.stopErr, &bc) {
		rs.res.BugCheck = bc
		return rs.res, nil
	}
	if rs.stopErr != nil {
		return rs.res, rs.stopErr
	}
	return rs.res, nil
}

// checkRun checks a run's duration, the machine and the workload, and
// reads the answers of the HAL calls sent without waiting (their
// programming must be in place before the processors run); it returns
// the workload prepared (from c, when it holds it under key).
func (s *Sim) checkRun(durationUS uint64, c *Cache, key string, w *workload.Spec) (*prepared, error) {
	if durationUS > 3600e6 {
		return nil, fmt.Errorf("duration %d µs is more than an hour of simulated time", durationUS)
	}
	if err := s.m.Err(); err != nil {
		return nil, fmt.Errorf("the machine has stopped: %w", err)
	}
	p, err := c.prepared(key, w, Target(s.m.Arch()))
	if err != nil {
		return nil, err
	}
	for _, t := range p.r.Threads {
		if t.Affinity != 0 && t.Affinity&allMask(s.ncpu) == 0 {
			return nil, fmt.Errorf("workload: a thread's affinity 0x%X selects none of the machine's %d processors", t.Affinity, s.ncpu)
		}
	}
	for _, h := range s.hals {
		if h == nil {
			continue
		}
		if err := h.Settle(); err != nil {
			return nil, s.m.HALFailed(h.Name(), "a call the kernel does not wait for", err)
		}
	}
	return p, nil
}

// wrapUp ends the run's processors (their last segments, thread
// switches and interrupt-hook batches) and, unless the run stopped,
// brings the kernel's clock to the run's end.
func (rs *runState) wrapUp() {
	s := rs.s
	rs.cpus = s.cpus
	s.cpus = nil
	for _, c := range rs.cpus {
		rs.retire(c)
		s.reportSwitch(c.idx, c.clock, 0, 0)
	}
	rs.settleStacks()
	if err := rs.flushHooks(); err != nil && rs.stopErr == nil {
		rs.stopErr = err
	}
	if rs.stopErr == nil {
		if d := s.time100ns(s.now) - s.m.Now(); s.time100ns(s.now) > s.m.Now() {
			s.m.Advance(d)
		}
	}
}

func allMask(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(n) - 1
}

func lowestBit(m uint64) int {
	for i := 0; i < 64; i++ {
		if m&(1<<uint(i)) != 0 {
			return i
		}
	}
	return 0
}
