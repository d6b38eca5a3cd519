package sim

import (
	"fmt"
	"math"

	"github.com/proflab/proflab/kernel"
)

// This file is the scheduler: the run's threads, which processor runs
// which, quantum ends, sleeping and waking.

// thread is a workload thread during a run.
type thread struct {
	idx      int
	kt       *kernel.Thread
	ctx      int // truth context: process index + 1
	affinity uint64
	busy     float64
	types    []segType
	loopPos  map[int]uint64 // loop function → position reached
	lastCPU  int
	wake     uint64 // while sleeping
	running  bool
	sleeping bool
}

// setupCheck is how many processes setup makes between two looks at the
// run's context.
const setupCheck = 1024

// setup makes the run's threads and places them.
func (rs *runState) setup() error {
	s := rs.s
	r := rs.w
	rs.ctxPID = []uint32{0}
	rs.wakeAt = math.MaxUint64
	procs := make([]*kernel.Process, len(r.Spec.Processes))
	// by name, indexed once: a search per process made a workload of n
	// processes cost n² (100,000 processes took 111 s before a 1 ms run)
	byName := s.m.ProcessesByName()
	for i, p := range r.Spec.Processes {
		if i%setupCheck == setupCheck-1 {
			if err := rs.ctx.Err(); err != nil {
				return fmt.Errorf("the run was stopped while it made its %d processes: %w", len(r.Spec.Processes), err)
			}
		}
		var kp *kernel.Process
		// (the run's own workload holds the run's processes: a prepared
		// workload shared by runs holds none)
		if proc := rs.spec.Processes[i].Proc; proc != nil {
			var ok bool
			if kp, ok = proc.(*kernel.Process); !ok {
				return fmt.Errorf("workload: process %q is a %T, not a machine's process", p.Name, proc)
			}
		}
		if kp == nil {
			kp = byName[p.Name]
		}
		if kp == nil {
			kp = s.m.NewProcess(p.Name, kernel.Token{Integrity: kernel.IntegrityMedium})
			byName[p.Name] = kp
		}
		if kp.Machine() != s.m {
			return fmt.Errorf("workload: process %q belongs to another machine", kp.Name())
		}
		procs[i] = kp
		rs.ctxPID = append(rs.ctxPID, kp.ID())
	}
	perProc := map[int]int{}
	for i, t := range r.Threads {
		kp := procs[t.Process]
		j := perProc[t.Process]
		perProc[t.Process]++
		var kt *kernel.Thread
		if ths := kp.Threads(); j < len(ths) {
			kt = ths[j]
		} else {
			var err error
			if kt, err = kp.CreateThread(t.Affinity & allMask(s.ncpu)); err != nil {
				return fmt.Errorf("workload: process %q thread %d: %w", kp.Name(), j+1, err)
			}
		}
		th := &thread{idx: i, kt: kt, ctx: t.Process + 1, affinity: t.Affinity & allMask(s.ncpu), busy: t.Busy,
			types: rs.prep.types[i], loopPos: map[int]uint64{}}
		if th.affinity == 0 {
			th.affinity = allMask(s.ncpu)
		}
		th.lastCPU = t.CPU
		if th.affinity&(1<<uint(t.CPU)) == 0 || t.CPU >= s.ncpu {
			th.lastCPU = lowestBit(th.affinity)
		}
		rs.threads = append(rs.threads, th)
	}
	rs.stackTallies = make([]stackTally, len(r.Stacks))
	m := len(rs.ctxPID) * rs.nf
	rs.tallyArena = tallyPool.get(s.ncpu * m)
	rs.tallies = make([][]tally, s.ncpu)
	for c := range rs.tallies {
		rs.tallies[c] = rs.tallyArena[c*m : (c+1)*m : (c+1)*m]
	}
	s.cpus = make([]*cpuRun, s.ncpu)
	for c := range s.cpus {
		s.cpus[c] = &cpuRun{idx: c, clock: s.now, dirty: true}
		rs.idle(s.cpus[c])
	}
	for _, th := range rs.threads {
		c := s.cpus[th.lastCPU]
		if c.th == nil {
			rs.dispatch(c, th)
		} else {
			rs.ready = append(rs.ready, th)
		}
	}
	rs.fillIdle()
	return nil
}

// idle puts the idle context on c.
func (rs *runState) idle(c *cpuRun) {
	c.th = nil
	rs.s.reportSwitch(c.idx, c.clock, 0, 0)
	c.built = false
	c.dirty = true
}

// dispatch runs th on c from c's clock.
func (rs *runState) dispatch(c *cpuRun, th *thread) {
	c.th = th
	th.running, th.lastCPU = true, c.idx
	c.quantumEnd = c.clock + rs.quantum
	if th.kt != nil && th.kt.CPU() != c.idx {
		_ = th.kt.RunOn(c.idx) // the kernel's affinity may be narrower; the lab's scheduler decides
	}
	rs.buildClasses(c)
	c.dirty = true
	if th.kt != nil {
		rs.s.reportSwitch(c.idx, c.clock, th.kt.Process().ID(), th.kt.ID())
	}
}

// fillIdle dispatches ready threads onto idle processors they allow,
// preferring each thread's last processor.
func (rs *runState) fillIdle() {
	for i := 0; i < len(rs.ready); {
		th := rs.ready[i]
		var pick *cpuRun
		if c := rs.s.cpus[th.lastCPU]; c.th == nil && th.affinity&(1<<uint(c.idx)) != 0 {
			pick = c
		} else {
			for _, c := range rs.s.cpus {
				if c.th == nil && th.affinity&(1<<uint(c.idx)) != 0 {
					pick = c
					break
				}
			}
		}
		if pick == nil {
			i++
			continue
		}
		rs.ready = append(rs.ready[:i], rs.ready[i+1:]...)
		rs.idleUntil(pick, rs.s.now)
		rs.dispatch(pick, th)
	}
}

// quantumEnd takes c's thread off at the end of its quantum: it sleeps
// (a thread busy less than all the time) or waits in the ready queue, and
// the first ready thread allowed on c runs next.
func (rs *runState) quantumEnd(c *cpuRun) {
	th := c.th
	rs.closeSegment(c) // the quantum cuts the segment in progress
	th.running = false
	if th.busy < 1 {
		th.sleeping = true
		th.wake = c.clock + uint64(float64(rs.quantum)*(1-th.busy)/th.busy)
		rs.updateWake()
	} else {
		rs.ready = append(rs.ready, th)
	}
	for i, r := range rs.ready {
		if r.affinity&(1<<uint(c.idx)) != 0 {
			rs.ready = append(rs.ready[:i], rs.ready[i+1:]...)
			if r == th {
				// the same thread runs another quantum: its deferred
				// segments and classes stay
				th.running = true
				c.quantumEnd = c.clock + rs.quantum
				c.dirty = true
			} else {
				rs.retire(c)
				rs.dispatch(c, r)
			}
			rs.fillIdle()
			return
		}
	}
	rs.retire(c)
	rs.idle(c)
	rs.fillIdle()
}

// nextWake is the cycle the earliest sleeping thread wakes at.
func (rs *runState) nextWake() uint64 { return rs.wakeAt }

// updateWake recomputes nextWake after threads slept or woke.
func (rs *runState) updateWake() {
	rs.wakeAt = math.MaxUint64
	for _, th := range rs.threads {
		if th.sleeping && th.wake < rs.wakeAt {
			rs.wakeAt = th.wake
		}
	}
}

func (rs *runState) wakeThreads() {
	for _, th := range rs.threads {
		if th.sleeping && th.wake <= rs.s.now {
			th.sleeping = false
			rs.ready = append(rs.ready, th)
		}
	}
	rs.updateWake()
	rs.fillIdle()
}
