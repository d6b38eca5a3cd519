package refengine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// segKind is what a processor is executing.
type segKind uint8

const (
	kindThread segKind = iota // a thread's function (user or kernel mode)
	kindISR
	kindDPC
	kindIdle
)

// fnInfo is a resolved function prepared for execution.
type fnInfo struct {
	addr  uint64
	ib    uint64 // instruction bytes
	n     uint64 // instruction slots
	cpi   float64
	rate  [nEvents]float64 // events per instruction (cycles: cpi)
	kmode bool
	loop  uint64
	comps []comp // address distribution (non-loop)
}

// comp is a component of a function's address distribution: slots
// [lo, hi) uniformly, with cumulative weight cum.
type comp struct {
	lo, hi uint64
	w, cum float64
}

func prepare(r *workload.Resolved) []fnInfo {
	ib := r.Spec.InstructionBytes
	out := make([]fnInfo, len(r.Funcs))
	for i, f := range r.Funcs {
		fi := fnInfo{addr: f.Addr, ib: ib, n: f.Instructions, cpi: f.CPI, kmode: f.Mode == workload.KernelMode, loop: f.LoopInstructions}
		fi.rate = [nEvents]float64{1, f.CPI, f.BranchRate, f.BranchRate * f.MispredictRate, f.CacheMissRate, f.CacheRefRate}
		var hot float64
		for _, h := range f.Hotspots {
			lo := h.Offset / ib
			hi := min(fi.n, max(lo+1, (h.Offset+h.Size+ib-1)/ib))
			lo = min(lo, fi.n-1)
			fi.comps = append(fi.comps, comp{lo: lo, hi: hi, w: h.Weight})
			hot += h.Weight
		}
		if rest := 1 - hot; rest > 1e-12 || len(fi.comps) == 0 {
			fi.comps = append(fi.comps, comp{lo: 0, hi: fi.n, w: max(rest, 0)})
		}
		var cum float64
		for j := range fi.comps {
			cum += fi.comps[j].w
			fi.comps[j].cum = cum
		}
		for j := range fi.comps {
			fi.comps[j].w /= cum
			fi.comps[j].cum /= cum
		}
		if fi.loop > 0 {
			fi.comps = []comp{{lo: 0, hi: fi.loop, w: 1, cum: 1}}
		}
		out[i] = fi
	}
	return out
}

// thread is a workload thread during a run.
type thread struct {
	idx      int
	kt       *kernel.Thread
	ctx      int // truth context: process index + 1
	affinity uint64
	busy     float64
	mix      []workload.Weighted
	cum      []float64
	loopPos  map[int]uint64
	lastCPU  int
	wake     uint64 // while sleeping
	running  bool
	sleeping bool
}

// cpuRun is one processor's execution state during a run.
type cpuRun struct {
	idx        int
	clock      uint64 // cycles executed up to
	th         *thread
	quantumEnd uint64

	fn        int
	kind      segKind
	segStart  uint64
	segLen    uint64
	done      uint64
	loopStart uint64

	next  uint64
	dirty bool

	times [5]uint64 // cycles: user, kernel, interrupt, DPC, idle
}

// tally is ground truth of one (context, processor, function).
type tally struct {
	instr  uint64
	cycles uint64
	ev     [nEvents]float64
}

type runState struct {
	ctx     context.Context
	s       *Sim
	res     *Result
	w       *workload.Resolved
	fns     []fnInfo
	threads []*thread
	ready   []*thread
	quantum uint64
	segLen  uint64
	end     uint64
	ctxPID  []uint32 // context → process id (0: none)
	tallies [][]tally
	nf      int
	cpus    []*cpuRun
	hooks   map[string][]hal.Interrupt
	halByNm map[string]HAL
	stopErr error
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
	if ctx == nil {
		ctx = context.Background()
	}
	if s.m == nil {
		return nil, errors.New("sim: run before a machine is attached")
	}
	if w == nil {
		return nil, errors.New("sim: run needs a workload")
	}
	if durationUS > 3600e6 {
		return nil, fmt.Errorf("duration %d µs is more than an hour of simulated time", durationUS)
	}
	if err := s.m.Err(); err != nil {
		return nil, fmt.Errorf("the machine has stopped: %w", err)
	}
	r, err := w.Resolve(workload.Target{X86: s.m.Arch() == kernel.X86, UserProbeAddress: s.m.Arch().MmUserProbeAddress()})
	if err != nil {
		return nil, err
	}
	for _, t := range r.Threads {
		if t.Affinity != 0 && t.Affinity&allMask(s.ncpu) == 0 {
			return nil, fmt.Errorf("workload: a thread's affinity 0x%X selects none of the machine's %d processors", t.Affinity, s.ncpu)
		}
	}
	s.syncedNow()
	rs := &runState{ctx: ctx, s: s, w: r, fns: prepare(r), nf: len(r.Funcs), hooks: map[string][]hal.Interrupt{}, halByNm: map[string]HAL{}}
	for _, h := range s.hals {
		if h != nil {
			rs.halByNm[h.Name()] = h
		}
	}
	rs.quantum = max(1, r.Spec.QuantumUS*s.freq)
	rs.segLen = r.Spec.SegmentInstructions
	start := s.now
	rs.end = start + durationUS*s.freq
	rs.res = newResult(s, r, s.time100ns(start))
	logStart := len(s.log)
	if err := rs.setup(); err != nil {
		return nil, err
	}
	s.observeControlAreas()
	s.setupDS()
	rs.loop()
	rs.cpus = s.cpus
	s.cpus = nil
	if err := rs.flushHooks(); err != nil && rs.stopErr == nil {
		rs.stopErr = err
	}
	if rs.stopErr == nil {
		if d := s.time100ns(s.now) - s.m.Now(); s.time100ns(s.now) > s.m.Now() {
			s.m.Advance(d)
		}
	}
	rs.account()
	rs.finish()
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

// setup makes the run's threads and places them.
func (rs *runState) setup() error {
	s := rs.s
	r := rs.w
	rs.ctxPID = []uint32{0}
	procs := make([]*kernel.Process, len(r.Spec.Processes))
	for i, p := range r.Spec.Processes {
		var kp *kernel.Process
		if p.Proc != nil {
			var ok bool
			if kp, ok = p.Proc.(*kernel.Process); !ok {
				return fmt.Errorf("workload: process %q is a %T, not a machine's process", p.Name, p.Proc)
			}
		}
		if kp == nil {
			for _, q := range s.m.Processes() {
				if q.Name() == p.Name {
					kp = q
					break
				}
			}
		}
		if kp == nil {
			kp = s.m.NewProcess(p.Name, kernel.Token{Integrity: kernel.IntegrityMedium})
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
		th := &thread{idx: i, kt: kt, ctx: t.Process + 1, affinity: t.Affinity & allMask(s.ncpu), busy: t.Busy, mix: t.Mix, loopPos: map[int]uint64{}}
		if th.affinity == 0 {
			th.affinity = allMask(s.ncpu)
		}
		var cum float64
		for _, m := range t.Mix {
			cum += m.Weight
			th.cum = append(th.cum, cum)
		}
		th.lastCPU = t.CPU
		if th.affinity&(1<<uint(t.CPU)) == 0 || t.CPU >= s.ncpu {
			th.lastCPU = lowestBit(th.affinity)
		}
		rs.threads = append(rs.threads, th)
	}
	rs.tallies = make([][]tally, s.ncpu)
	for c := range rs.tallies {
		rs.tallies[c] = make([]tally, len(rs.ctxPID)*rs.nf)
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

// idle puts the idle context on c.
func (rs *runState) idle(c *cpuRun) {
	c.th = nil
	c.kind = kindIdle
	c.fn = rs.w.Idle
	c.segStart, c.segLen, c.done = c.clock, 0, 0
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
	rs.newSegment(c)
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
		rs.catchUp(pick, rs.s.now)
		rs.dispatch(pick, th)
	}
}

// newSegment draws c's next segment.
func (rs *runState) newSegment(c *cpuRun) {
	th := c.th
	rng := rs.s.rng
	k := rs.w.Spec.Kernel
	c.kind = kindThread
	var set []workload.Weighted
	if k.InterruptShare > 0 || k.DPCShare > 0 {
		u := rng.Float64()
		switch {
		case u < k.InterruptShare:
			c.kind, set = kindISR, rs.w.ISR
		case u < k.InterruptShare+k.DPCShare:
			c.kind, set = kindDPC, rs.w.DPC
		}
	}
	if set == nil {
		c.fn = th.mix[pick(th.cum, rng.Float64())].Func
	} else if len(set) == 1 {
		c.fn = set[0].Func
	} else {
		var cum []float64
		var t float64
		for _, w := range set {
			t += w.Weight
			cum = append(cum, t)
		}
		c.fn = set[pick(cum, rng.Float64())].Func
	}
	f := &rs.fns[c.fn]
	c.segLen = max(rs.segLen, uint64(math.Ceil(1/f.cpi)))
	c.segStart, c.done = c.clock, 0
	c.loopStart = 0
	if f.loop > 0 {
		c.loopStart = th.loopPos[c.fn]
	}
	c.dirty = true
}

func pick(cum []float64, u float64) int {
	u *= cum[len(cum)-1]
	i := sort.SearchFloat64s(cum, u)
	if i >= len(cum) {
		i = len(cum) - 1
	}
	for i < len(cum)-1 && cum[i] <= u {
		i++
	}
	return i
}

func (c *cpuRun) cycleAt(f *fnInfo, d uint64) uint64 {
	if f.cpi == 1 {
		return c.segStart + d
	}
	return c.segStart + uint64(float64(d)*f.cpi)
}

// instrAt is the number of instructions complete at cycle t.
func (c *cpuRun) instrAt(f *fnInfo, t uint64) uint64 {
	if t < c.segStart {
		return 0
	}
	var d uint64
	if f.cpi == 1 {
		d = t - c.segStart
	} else {
		// the last instruction whose completion cycle is at or before t
		d = uint64(float64(t-c.segStart+1) / f.cpi)
		for d > 0 && c.cycleAt(f, d) > t {
			d--
		}
		for d < c.segLen && c.cycleAt(f, d+1) <= t {
			d++
		}
	}
	return min(d, c.segLen)
}

// advance executes c up to instruction d of its segment and cycle t
// (t >= cycleAt(d)), tallying truth and counting events.
func (rs *runState) advance(c *cpuRun, d, t uint64) {
	if t < c.clock {
		t = c.clock
	}
	elapsed := t - c.clock
	ctx := 0
	if c.th != nil {
		ctx = c.th.ctx
	}
	tl := &rs.tallies[c.idx][ctx*rs.nf+c.fn]
	tl.cycles += elapsed
	c.clock = t
	switch {
	case c.kind == kindIdle:
		c.times[4] += elapsed
		return
	case c.kind == kindISR:
		c.times[2] += elapsed
	case c.kind == kindDPC:
		c.times[3] += elapsed
	case rs.fns[c.fn].kmode:
		c.times[1] += elapsed
	default:
		c.times[0] += elapsed
	}
	delta := d - c.done
	if delta == 0 {
		return
	}
	f := &rs.fns[c.fn]
	fd := float64(delta)
	tl.instr += delta
	for e := range nEvents {
		tl.ev[e] += fd * f.rate[e]
	}
	for _, b := range rs.s.banks {
		if c.idx >= len(b.counters) {
			continue
		}
		for i := range b.counters[c.idx] {
			k := &b.counters[c.idx][i]
			if k.enabled {
				k.remaining -= fd * f.rate[k.event]
			}
		}
	}
	c.done = d
}

// catchUp advances c to cycle t by time (t at most its next event).
func (rs *runState) catchUp(c *cpuRun, t uint64) {
	if t <= c.clock {
		return
	}
	if c.kind == kindIdle {
		rs.advance(c, 0, t)
		return
	}
	f := &rs.fns[c.fn]
	rs.advance(c, c.instrAt(f, t), t)
}

const eps = 1e-6

// nextEvent computes c's next event cycle.
func (rs *runState) nextEvent(c *cpuRun) uint64 {
	t := rs.end
	for _, b := range rs.s.banks {
		if c.idx < len(b.timers) {
			if tm := &b.timers[c.idx]; tm.enabled && tm.armed && tm.next < t {
				t = max(tm.next, c.clock)
			}
		}
	}
	if c.kind == kindIdle {
		return t
	}
	f := &rs.fns[c.fn]
	if c.th != nil && c.quantumEnd < t {
		t = max(c.quantumEnd, c.clock)
	}
	if e := c.cycleAt(f, c.segLen); e < t {
		t = e
	}
	for _, b := range rs.s.banks {
		if c.idx >= len(b.counters) {
			continue
		}
		for i := range b.counters[c.idx] {
			k := &b.counters[c.idx][i]
			if !k.enabled {
				continue
			}
			r := f.rate[k.event]
			if r <= 0 {
				continue
			}
			need := uint64(math.Max(1, math.Ceil(k.remaining/r-eps)))
			if k.remaining <= eps {
				need = 0
			}
			if c.done+need <= c.segLen {
				if e := c.cycleAt(f, c.done+need); e < t {
					t = max(e, c.clock)
				}
			}
		}
	}
	return t
}

// loop is the global event loop: the earliest processor event first.
func (rs *runState) loop() {
	s := rs.s
	var lastT uint64
	var lastC *cpuRun
	stuck := 0
	for iter := 0; rs.stopErr == nil; iter++ {
		if iter&1023 == 1023 {
			if err := rs.ctx.Err(); err != nil {
				rs.stopErr = fmt.Errorf("the run was stopped at %d µs of simulated time: %w", s.time100ns(s.now)/10, err)
				break
			}
		}
		var c *cpuRun
		for _, x := range s.cpus {
			if x.dirty {
				x.next = rs.nextEvent(x)
				x.dirty = false
			}
			if c == nil || x.next < c.next {
				c = x
			}
		}
		wake := rs.nextWake()
		if wake < c.next && wake < rs.end {
			s.now = wake
			rs.wakeThreads()
			continue
		}
		if c.next >= rs.end {
			break
		}
		if c.next == lastT && c == lastC {
			if stuck++; stuck > 10000 {
				rs.stopErr = fmt.Errorf("proflab bug: the simulator made no progress on processor %d at cycle %d (please report it)", c.idx, c.next)
				break
			}
		} else {
			lastT, lastC, stuck = c.next, c, 0
		}
		s.now = c.next
		rs.step(c)
	}
	for _, c := range s.cpus {
		if rs.stopErr == nil {
			rs.catchUp(c, rs.end)
		}
	}
	if rs.stopErr == nil {
		s.now = rs.end
	}
}

func (rs *runState) nextWake() uint64 {
	t := uint64(math.MaxUint64)
	for _, th := range rs.threads {
		if th.sleeping && th.wake < t {
			t = th.wake
		}
	}
	return t
}

func (rs *runState) wakeThreads() {
	for _, th := range rs.threads {
		if th.sleeping && th.wake <= rs.s.now {
			th.sleeping = false
			rs.ready = append(rs.ready, th)
		}
	}
	rs.fillIdle()
}

// step handles everything due on c at s.now.
func (rs *runState) step(c *cpuRun) {
	s := rs.s
	t := s.now
	c.dirty = true
	if c.kind != kindIdle {
		f := &rs.fns[c.fn]
		// an instruction-exact event (overflow, segment end) or a time one
		d := c.instrAt(f, t)
		rs.advance(c, d, t)
	} else {
		rs.advance(c, 0, t)
	}
	// counters that overflowed
	if c.kind != kindIdle {
		for _, b := range s.banks {
			if c.idx >= len(b.counters) {
				continue
			}
			for i := range b.counters[c.idx] {
				k := &b.counters[c.idx][i]
				if k.enabled && k.remaining <= eps {
					rs.overflow(c, b, i, k)
					if rs.stopErr != nil {
						return
					}
				}
			}
		}
	}
	// timers due
	for _, b := range s.banks {
		if c.idx >= len(b.timers) {
			continue
		}
		tm := &b.timers[c.idx]
		if tm.enabled && tm.armed && tm.next <= t {
			rs.deliver(c, b.name, tm.source, rs.interruptedIP(c, 0), false)
			if rs.stopErr != nil {
				return
			}
			rs.rearm(c, b, tm)
		}
	}
	if c.kind != kindIdle && c.th != nil && t >= c.quantumEnd {
		rs.quantumEnd(c)
		return
	}
	if c.kind != kindIdle && c.done >= c.segLen {
		rs.endSegment(c)
		rs.newSegment(c)
	}
}

// endSegment records a loop function's position.
func (rs *runState) endSegment(c *cpuRun) {
	if f := &rs.fns[c.fn]; f.loop > 0 && c.th != nil {
		c.th.loopPos[c.fn] = (c.loopStart + c.done) % f.loop
	}
}

func (rs *runState) quantumEnd(c *cpuRun) {
	th := c.th
	rs.endSegment(c)
	th.running = false
	if th.busy < 1 {
		th.sleeping = true
		th.wake = c.clock + uint64(float64(rs.quantum)*(1-th.busy)/th.busy)
	} else {
		rs.ready = append(rs.ready, th)
	}
	// pick the first ready thread allowed here
	for i, r := range rs.ready {
		if r.affinity&(1<<uint(c.idx)) != 0 {
			rs.ready = append(rs.ready[:i], rs.ready[i+1:]...)
			rs.dispatch(c, r)
			rs.fillIdle()
			return
		}
	}
	rs.idle(c)
	rs.fillIdle()
}

func (rs *runState) rearm(c *cpuRun, b *bank, tm *timerHW) {
	s := rs.s
	if tm.mode == hal.TimerPeriodic {
		tm.next += tm.period
		return
	}
	if len(tm.queue) == 0 {
		if h := rs.halByNm[b.name]; h != nil && h.Abilities().TimerRefiller {
			var dry []int
			for i := range b.timers {
				x := &b.timers[i]
				if x.enabled && x.mode == hal.TimerOneShot && len(x.queue) == 0 {
					dry = append(dry, i)
				}
			}
			s.refilling = true
			err := h.RefillTimer(dry)
			s.refilling = false
			if err != nil {
				rs.stopErr = err
				return
			}
		}
	}
	if len(tm.queue) == 0 {
		tm.armed = false
		s.logf("%s: processor %d: the one-shot timer queue ran dry; the timer stops", b.name, c.idx)
		return
	}
	tm.next += max(1, s.cycles100ns(uint64(tm.queue[0])))
	tm.queue = tm.queue[1:]
}

// slotIP draws the instruction slot c executes at instruction d of its
// segment (loop functions: deterministic position) and returns it.
func (rs *runState) slot(c *cpuRun, d uint64) (f *fnInfo, slot uint64) {
	f = &rs.fns[c.fn]
	if c.kind == kindIdle {
		return f, rs.s.rng.Uint64N(f.n)
	}
	if f.loop > 0 {
		if c.kind == kindThread {
			return f, (c.loopStart + d) % f.loop
		}
		return f, rs.s.rng.Uint64N(f.loop)
	}
	u := rs.s.rng.Float64()
	for _, k := range f.comps {
		if u < k.cum || k.cum >= 1 {
			return f, k.lo + rs.s.rng.Uint64N(k.hi-k.lo)
		}
	}
	k := f.comps[len(f.comps)-1]
	return f, k.lo + rs.s.rng.Uint64N(k.hi-k.lo)
}

// interruptedIP is the IP of the instruction in progress, plus skid
// instructions.
func (rs *runState) interruptedIP(c *cpuRun, skid uint64) uint64 {
	d := c.done
	f, sl := rs.slot(c, d)
	if skid > 0 {
		if f.loop > 0 && c.kind == kindThread {
			sl = (sl + skid) % f.loop
		} else {
			sl += skid // lands past the end: in whatever code follows
		}
	}
	return f.addr + sl*f.ib
}

// overflow handles counter i of bank b overflowing on c.
func (rs *runState) overflow(c *cpuRun, b *bank, i int, k *counterHW) {
	s := rs.s
	k.remaining += float64(k.reload)
	if k.requiresCA && s.m.ControlArea(c.idx) == 0 {
		if !k.warned {
			k.warned = true
			s.logf("%s: processor %d has no PROCESSOR_PROFILE_CONTROL_AREA: %s overflows deliver nothing there", b.name, c.idx, k.source)
		}
		return
	}
	if !k.pebs {
		var skid uint64
		if k.skidTotal > 0 {
			u := s.rng.Uint64N(k.skidTotal)
			for _, w := range k.skid {
				if u < uint64(w.Weight) {
					skid = uint64(w.Instructions)
					break
				}
				u -= uint64(w.Weight)
			}
		}
		rs.deliver(c, b.name, k.source, rs.interruptedIP(c, skid), false)
		return
	}
	ds := &b.ds[c.idx]
	if s.dsDirty {
		s.setupDS()
	}
	if !ds.enabled || ds.ca == 0 || ds.buf == 0 {
		if !k.warned {
			k.warned = true
			s.logf("%s: processor %d: PEBS is not set up in the DS save area: %s overflows deliver nothing there", b.name, c.idx, k.source)
		}
		return
	}
	if i < len(ds.reset) && ds.reset[i] != 0 {
		k.remaining = float64(ds.reset[i]) + min(k.remaining-float64(k.reload), 0)
	}
	ip := rs.interruptedIP(c, 0)
	rec := pebsRecord{source: k.source, ip: ip, kind: c.kind}
	s.writeRecord(c.idx, ds, rec, i)
	ds.pending = append(ds.pending, rec)
	ds.index++
	if ds.index >= ds.thresholdRecords || ds.index >= ds.bufferRecords {
		pend := ds.pending
		ds.pending = ds.pending[:0:0]
		ds.index = 0
		s.writeIndex(ds)
		for _, r := range pend {
			save := c.kind
			c.kind = r.kind
			rs.deliverIP(c, b.name, r.source, r.ip, true)
			c.kind = save
			if rs.stopErr != nil {
				return
			}
		}
	}
}

// PEBS record layout (the 0xC0-byte record of recent cores): RFLAGS at
// 0x00, RIP at 0x08, IA32_PERF_GLOBAL_STATUS at 0x90, EventingIP at 0xB0,
// TSC at 0xB8. Fields past RecordSize are not written.
func (s *Sim) writeRecord(cpu int, ds *dsHW, r pebsRecord, counter int) {
	size := uint64(ds.recordSize)
	b := make([]byte, size)
	put := func(off uint64, v uint64) {
		if off+8 <= size {
			binary.LittleEndian.PutUint64(b[off:], v)
		}
	}
	put(0x00, 0x202)
	put(0x08, r.ip)
	put(0x90, 1<<uint(counter))
	put(0xB0, r.ip)
	put(0xB8, s.now)
	addr := ds.buf + uint64(ds.index)*size
	if err := s.m.WriteSystem(addr, b); err != nil {
		s.logf("processor %d: writing a PEBS record at 0x%X: %v", cpu, addr, err)
	}
	ds.index++
	s.writeIndex(ds)
	ds.index--
}

func (s *Sim) writeIndex(ds *dsHW) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], ds.buf+uint64(ds.index)*uint64(ds.recordSize))
	_ = s.m.WriteSystem(ds.ca+0x28, b[:])
}

// setupDS points every enabled DS programming at a PEBS buffer in its
// processor's control area.
func (s *Sim) setupDS() {
	s.dsDirty = false
	for _, b := range s.banks {
		for cpu := range b.ds {
			ds := &b.ds[cpu]
			if !ds.enabled || cpu >= s.ncpu {
				continue
			}
			ca := s.m.ControlArea(cpu)
			if ca == 0 {
				ds.ca = 0
				continue
			}
			need := uint64(ds.bufferRecords) * uint64(ds.recordSize)
			if ds.buf == 0 || ds.bufSize < need {
				buf, err := s.m.MapHardwareBuffer(need)
				if err != nil {
					s.logf("%s: processor %d: no PEBS buffer: %v", b.name, cpu, err)
					continue
				}
				ds.buf, ds.bufSize = buf, need
			}
			ds.ca = ca
			var area [0x60]byte
			le := binary.LittleEndian
			le.PutUint64(area[0x20:], ds.buf)
			le.PutUint64(area[0x28:], ds.buf+uint64(ds.index)*uint64(ds.recordSize))
			le.PutUint64(area[0x30:], ds.buf+need)
			le.PutUint64(area[0x38:], ds.buf+uint64(ds.thresholdRecords)*uint64(ds.recordSize))
			for i, r := range ds.reset {
				le.PutUint64(area[0x40+8*i:], uint64(r))
			}
			if err := s.m.WriteSystem(ca, area[:]); err != nil {
				s.logf("%s: processor %d: writing the DS save area: %v", b.name, cpu, err)
			}
		}
	}
}

// observeControlAreas tells ControlAreaObserver HALs about processors that
// gained or lost a control area since the last run.
func (s *Sim) observeControlAreas() {
	var gained, lost []int
	for cpu := range s.ncpu {
		has := s.m.ControlArea(cpu) != 0
		if has != s.caPresent[cpu] {
			if has {
				gained = append(gained, cpu)
			} else {
				lost = append(lost, cpu)
			}
			s.caPresent[cpu] = has
			s.dsDirty = true
		}
	}
	for _, h := range s.hals {
		if h == nil || !h.Abilities().ControlAreaObserver {
			continue
		}
		if len(gained) > 0 {
			if err := h.ControlArea(gained, true); err != nil {
				s.logf("%v", err)
			}
		}
		if len(lost) > 0 {
			if err := h.ControlArea(lost, false); err != nil {
				s.logf("%v", err)
			}
		}
	}
}

// deliver raises an interrupt on c with an IP drawn for the current code.
func (rs *runState) deliver(c *cpuRun, halName string, src nt.Source, ip uint64, pebs bool) {
	rs.deliverIP(c, halName, src, ip, pebs)
}

func (rs *runState) deliverIP(c *cpuRun, halName string, src nt.Source, ip uint64, pebs bool) {
	s := rs.s
	if now := s.time100ns(s.now); now > s.m.Now() {
		s.m.Advance(now - s.m.Now())
	}
	in := kernel.Interrupt{CPU: c.idx, Source: src, IP: ip, Mode: kernel.UserMode,
		ExecutingISR: c.kind == kindISR, ExecutingDPC: c.kind == kindDPC}
	f := &rs.fns[c.fn]
	if f.kmode || c.kind != kindThread {
		in.Mode = kernel.KernelMode
	}
	if c.th != nil {
		in.Thread = c.th.kt
	}
	if err := s.m.ProfileInterrupt(in); err != nil {
		rs.stopErr = err
		return
	}
	rs.res.count(c.idx, src)
	if h := rs.halByNm[halName]; h != nil && h.Abilities().InterruptHook {
		var flags uint32
		if in.Mode == kernel.UserMode {
			flags |= hal.InterruptUser
		}
		if in.ExecutingISR {
			flags |= hal.InterruptISR
		}
		if in.ExecutingDPC {
			flags |= hal.InterruptDPC
		}
		if pebs {
			flags |= hal.InterruptPEBS
		}
		rs.hooks[halName] = append(rs.hooks[halName], hal.Interrupt{Time: s.m.Now(), IP: ip, CPU: uint16(c.idx), Source: src, Flags: flags})
		if len(rs.hooks[halName]) >= hal.InterruptBatchMax {
			b := rs.hooks[halName]
			rs.hooks[halName] = nil
			if err := h.Interrupts(b); err != nil {
				rs.stopErr = err
			}
		}
	}
}

func (rs *runState) flushHooks() error {
	var names []string
	for n := range rs.hooks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if b := rs.hooks[n]; len(b) > 0 {
			if err := rs.halByNm[n].Interrupts(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// account adds the run's processor times to the kernel's counters.
func (rs *runState) account() {
	s := rs.s
	for _, c := range rs.cpus {
		tm := func(i int) uint64 { return s.time100ns(c.times[i]) }
		s.m.AccountTime(c.idx, kernel.CPUTimes{User: tm(0), Kernel: tm(1), Interrupt: tm(2), DPC: tm(3), Idle: tm(4)})
	}
}
