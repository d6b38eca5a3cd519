package hal

import (
	"errors"
	"fmt"
	"sort"
)

// EventKind is what changed in an [Event].
type EventKind uint8

const (
	// EventStart: the source's interrupt was started on the processor.
	EventStart EventKind = iota + 1
	// EventStop: the source's interrupt was stopped on the processor.
	EventStop
	// EventSet: the interval changed on a processor where the source is
	// started (Base reprograms only started sources).
	EventSet
	// EventReset: the instance is being reset (CPU is -1, Source 0); drop
	// any state of your own. Base adds Programming.ResetAll itself.
	EventReset
)

// String names the kind ("start").
func (k EventKind) String() string {
	switch k {
	case EventStart:
		return "start"
	case EventStop:
		return "stop"
	case EventSet:
		return "set"
	case EventReset:
		return "reset"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one change of one processor's source state, handed to
// Base.Program.
type Event struct {
	Kind EventKind
	// CPU is the processor (-1 for EventReset).
	CPU int
	// Source is the profile source.
	Source Source
	// Interval is the source's interval in effect on CPU, in its units.
	Interval uint32
}

// Base implements [HAL] from a source list and a programming function, so a
// HAL embeds it and writes only what is its own:
//
//	type Timer struct{ hal.Base }
//
//	func New() hal.HAL {
//		t := &Timer{}
//		t.Base = hal.Base{Name: "mytimer", Version: "1.0", Sources: t.sources, Program: t.program}
//		return t
//	}
//
// Base keeps each source's interval per processor (starting at the
// default), clamps set intervals to the source's bounds (then applies
// Quantise, and clamps again), tracks where each source is started, and
// answers queries with Supported and the interval in effect. A HAL may
// override any method; an overriding Configure must call Base.Configure.
type Base struct {
	// Name and Version are what Describe reports.
	Name, Version string
	// Sources returns the sources the HAL supports on machine m (any
	// order; Base sorts them and fills empty names and descriptions).
	// Required.
	Sources func(m Machine) []SourceSpec
	// Program returns the hardware programming for one event, or the zero
	// Programming. Called once per addressed processor, in ascending
	// order. Optional (nil programs nothing).
	Program func(e Event) Programming
	// Quantise maps a clamped interval to the one the hardware can do
	// (a timer's tick granularity, say). Optional.
	Quantise func(src Source, interval uint32) uint32
	// Counters returns the counters per processor the HAL reports for
	// HalQueryProfileNumberOfCounters ([CounterReporter]) on the
	// configured machine. Optional (nil reports 0: no counters).
	Counters func(m Machine) uint32

	configured bool
	machine    Machine
	specs      []SourceSpec
	state      map[Source]*sourceState
}

type sourceState struct {
	spec     SourceSpec
	interval []uint32 // per processor
	started  []bool   // per processor
}

var (
	_ HAL             = (*Base)(nil)
	_ CounterReporter = (*Base)(nil)
)

// Configure records the machine and the sources on it.
func (b *Base) Configure(m Machine) error {
	if b.Sources == nil {
		return errors.New("hal.Base: Sources is nil: set it in the HAL's factory")
	}
	if m.CPUs < 1 {
		return fmt.Errorf("hal.Base: machine has %d processors, want at least 1", m.CPUs)
	}
	specs := append([]SourceSpec(nil), b.Sources(m)...)
	sort.SliceStable(specs, func(i, j int) bool { return specs[i].Source < specs[j].Source })
	b.state = make(map[Source]*sourceState, len(specs))
	for i := range specs {
		s := &specs[i]
		if s.Name == "" {
			s.Name = SourceName(m.Vendor, s.Source)
		}
		if s.Description == "" {
			s.Description = SourceDescription(m.Vendor, s.Source)
		}
		if _, dup := b.state[s.Source]; dup {
			return fmt.Errorf("hal.Base: source %s listed twice by Sources", s.Source)
		}
		b.state[s.Source] = &sourceState{spec: *s}
	}
	b.specs, b.machine, b.configured = specs, m, true
	b.resetState()
	return nil
}

func (b *Base) resetState() {
	for _, st := range b.state {
		st.interval = make([]uint32, b.machine.CPUs)
		for i := range st.interval {
			st.interval[i] = st.spec.Bounds.Default
		}
		st.started = make([]bool, b.machine.CPUs)
	}
}

// Describe reports Name, Version and the sources.
func (b *Base) Describe() Description {
	return Description{Name: b.Name, Version: b.Version, Sources: append([]SourceSpec(nil), b.specs...)}
}

// Machine returns the configured machine.
func (b *Base) Machine() Machine { return b.machine }

// Spec returns the description of src, if the HAL supports it.
func (b *Base) Spec(src Source) (SourceSpec, bool) {
	st, ok := b.state[src]
	if !ok {
		return SourceSpec{}, false
	}
	return st.spec, true
}

// Interval returns src's interval in effect on cpu (0 if unsupported).
func (b *Base) Interval(cpu int, src Source) uint32 {
	st, ok := b.state[src]
	if !ok || cpu < 0 || cpu >= len(st.interval) {
		return 0
	}
	return st.interval[cpu]
}

// Started reports whether src's interrupt is started on cpu.
func (b *Base) Started(cpu int, src Source) bool {
	st, ok := b.state[src]
	return ok && cpu >= 0 && cpu < len(st.started) && st.started[cpu]
}

func (b *Base) check(cpus []int) error {
	if !b.configured {
		return errors.New("hal.Base: called before Configure")
	}
	return CheckCPUs(cpus, b.machine.CPUs)
}

// QuerySource answers Supported and the interval in effect; an unsupported
// source answers Supported=false, Interval=0.
func (b *Base) QuerySource(cpus []int, src Source) ([]SourceInfo, error) {
	if err := b.check(cpus); err != nil {
		return nil, err
	}
	out := make([]SourceInfo, len(cpus))
	st, ok := b.state[src]
	if !ok {
		return out, nil
	}
	for i, c := range cpus {
		out[i] = SourceInfo{Supported: true, Interval: st.interval[c]}
	}
	return out, nil
}

// SetInterval clamps (and quantises) interval, records it on each
// processor and reprograms the processors where src is started. An
// unsupported source is ignored (effective 0).
func (b *Base) SetInterval(cpus []int, src Source, interval uint32) ([]uint32, Programming, error) {
	if err := b.check(cpus); err != nil {
		return nil, Programming{}, err
	}
	eff := make([]uint32, len(cpus))
	st, ok := b.state[src]
	if !ok {
		return eff, Programming{}, nil
	}
	v := st.spec.Bounds.Clamp(interval)
	if b.Quantise != nil {
		v = st.spec.Bounds.Clamp(b.Quantise(src, v))
	}
	var p Programming
	for i, c := range cpus {
		st.interval[c] = v
		eff[i] = v
		if st.started[c] {
			p = p.Merge(b.program(Event{Kind: EventSet, CPU: c, Source: src, Interval: v}))
		}
	}
	return eff, p, nil
}

// StartInterrupt marks src started on each processor and programs it. An
// unsupported source is ignored.
func (b *Base) StartInterrupt(cpus []int, src Source) (Programming, error) {
	return b.startStop(cpus, src, true)
}

// StopInterrupt marks src stopped on each processor and programs it off.
func (b *Base) StopInterrupt(cpus []int, src Source) (Programming, error) {
	return b.startStop(cpus, src, false)
}

func (b *Base) startStop(cpus []int, src Source, on bool) (Programming, error) {
	if err := b.check(cpus); err != nil {
		return Programming{}, err
	}
	st, ok := b.state[src]
	if !ok {
		return Programming{}, nil
	}
	kind := EventStop
	if on {
		kind = EventStart
	}
	var p Programming
	for _, c := range cpus {
		st.started[c] = on
		p = p.Merge(b.program(Event{Kind: kind, CPU: c, Source: src, Interval: st.interval[c]}))
	}
	return p, nil
}

// NumberOfCounters answers HalQueryProfileNumberOfCounters from
// Counters (0 if it is nil).
func (b *Base) NumberOfCounters() (uint32, error) {
	if !b.configured {
		return 0, errors.New("hal.Base: NumberOfCounters before Configure")
	}
	if b.Counters == nil {
		return 0, nil
	}
	return b.Counters(b.machine), nil
}

// Reset stops everything, restores default intervals and answers
// ResetAll (after Program's answer to EventReset).
func (b *Base) Reset() (Programming, error) {
	if !b.configured {
		return Programming{}, errors.New("hal.Base: Reset before Configure")
	}
	p := b.program(Event{Kind: EventReset, CPU: -1})
	b.resetState()
	p.ResetAll = true
	return p, nil
}

func (b *Base) program(e Event) Programming {
	if b.Program == nil {
		return Programming{}
	}
	return b.Program(e)
}

// CheckCPUs reports whether cpus is a valid processor set for a machine of
// n processors: non-empty, ascending without repeats, each in [0, n).
func CheckCPUs(cpus []int, n int) error {
	if len(cpus) == 0 {
		return errors.New("empty processor set")
	}
	for i, c := range cpus {
		if c < 0 || c >= n {
			return fmt.Errorf("processor %d out of range: the machine has %d (0…%d)", c, n, n-1)
		}
		if i > 0 && c <= cpus[i-1] {
			return fmt.Errorf("processor set %v is not ascending without repeats", cpus)
		}
	}
	return nil
}
