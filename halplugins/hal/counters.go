package hal

import (
	"slices"
	"strings"
)

// CounterBank allocates the performance counters of every processor of one
// machine: which counter index counts which source on which processor,
// for a counter HAL (the shipped pmu and pebs HALs use it; see
// ProgramCounters).
type CounterBank struct {
	slots [][]bankSlot // [cpu][index]
}

type bankSlot struct {
	used bool
	src  Source
}

// NewCounterBank returns a bank of counters counters on each of cpus processors.
func NewCounterBank(cpus, counters int) *CounterBank {
	b := &CounterBank{slots: make([][]bankSlot, cpus)}
	for i := range b.slots {
		b.slots[i] = make([]bankSlot, counters)
	}
	return b
}

// Find returns the counter counting src on cpu, if any.
func (b *CounterBank) Find(cpu int, src Source) (int, bool) {
	for i, s := range b.slots[cpu] {
		if s.used && s.src == src {
			return i, true
		}
	}
	return 0, false
}

// Allocate returns the counter counting src on cpu, taking the lowest free
// one if none does yet; false if every counter of cpu is busy.
func (b *CounterBank) Allocate(cpu int, src Source) (int, bool) {
	if i, ok := b.Find(cpu, src); ok {
		return i, true
	}
	for i, s := range b.slots[cpu] {
		if !s.used {
			b.slots[cpu][i] = bankSlot{used: true, src: src}
			return i, true
		}
	}
	return 0, false
}

// Free releases the counter counting src on cpu and returns its index, if
// any.
func (b *CounterBank) Free(cpu int, src Source) (int, bool) {
	i, ok := b.Find(cpu, src)
	if ok {
		b.slots[cpu][i] = bankSlot{}
	}
	return i, ok
}

// Busy returns the sources counted on cpu, by counter index (unused
// counters omitted).
func (b *CounterBank) Busy(cpu int) []Source {
	var out []Source
	for _, s := range b.slots[cpu] {
		if s.used {
			out = append(out, s.src)
		}
	}
	return out
}

// InUse returns how many counters of cpu are busy.
func (b *CounterBank) InUse(cpu int) int { return len(b.Busy(cpu)) }

// Clear frees every counter.
func (b *CounterBank) Clear() {
	for _, c := range b.slots {
		clear(c)
	}
}

// ProgramCounters turns one event into counter programming on bank, what
// a counter HAL's Program does (the shipped pmu and pebs HALs use it): a
// start allocates a counter (or, with every counter busy, logs why the
// source does not start there), a set reprograms an allocated counter, a
// stop frees it, a reset clears the bank. The counter's event select is
// the vendor's for the source (EventSelect); a source without one is
// not started, with a log line. decorate, when not nil, fills in the
// HAL's own fields of an enabled counter (its skid, PEBS).
func ProgramCounters(bank *CounterBank, vendor string, e Event, halName string, decorate func(*CounterProgram)) Programming {
	var out Programming
	switch e.Kind {
	case EventReset:
		bank.Clear()
	case EventStart, EventSet:
		var idx int
		var ok bool
		if e.Kind == EventStart {
			idx, ok = bank.Allocate(e.CPU, e.Source)
			if !ok {
				out.Logf("%s: processor %d: all %d counters are busy (%s); %s not started there, no interrupts will come from it",
					halName, e.CPU, bank.InUse(e.CPU), sourceNames(bank.Busy(e.CPU)), e.Source)
				return out
			}
		} else if idx, ok = bank.Find(e.CPU, e.Source); !ok {
			return out // refused earlier: nothing to reprogram
		}
		sel, known := EventSelect(vendor, e.Source)
		if !known {
			bank.Free(e.CPU, e.Source)
			out.Logf("%s: processor %d: %s has no event select on %s; not started there", halName, e.CPU, e.Source, vendor)
			return out
		}
		c := CounterProgram{CPU: e.CPU, Index: idx, Enabled: true, Source: e.Source, EventSelect: sel, Reload: e.Interval}
		if decorate != nil {
			decorate(&c)
		}
		out.Counters = append(out.Counters, c)
	case EventStop:
		if idx, ok := bank.Free(e.CPU, e.Source); ok {
			out.Counters = append(out.Counters, CounterProgram{CPU: e.CPU, Index: idx, Source: e.Source})
		}
	}
	return out
}

// sourceNames lists sources by name, sorted, for messages.
func sourceNames(srcs []Source) string {
	s := make([]string, len(srcs))
	for i, v := range srcs {
		s[i] = v.Name()
	}
	slices.Sort(s)
	return strings.Join(s, ", ")
}

// CounterBase is the Base of a HAL whose sources are performance
// counters, one counter per source on each processor: the sources (events
// units, the counter bounds: hal.CounterBounds), HalQueryProfileNumberOfCounters
// (one per source), and the programming of a counter bank sized for the
// configured machine (ProgramCounters). decorate, when not nil, fills in
// the HAL's own fields of each enabled counter (its skid, say). A HAL
// embeds it and adds only its settings:
//
//	f.Base = hal.CounterBase("fixed-skid", "1.0.0", srcs, func(c *hal.CounterProgram) { c.Skid = … })
func CounterBase(name, version string, srcs []Source, decorate func(*CounterProgram)) Base {
	srcs = slices.Clone(srcs)
	var bank *CounterBank
	var vendor string
	return Base{
		Name: name, Version: version,
		Sources: func(m Machine) []SourceSpec {
			bank, vendor = NewCounterBank(m.CPUs, len(srcs)), m.Vendor
			specs := make([]SourceSpec, len(srcs))
			for i, s := range srcs {
				specs[i] = SourceSpec{Source: s, Units: UnitsEvents, Bounds: CounterBounds()}
			}
			return specs
		},
		Counters: func(Machine) uint32 { return uint32(len(srcs)) },
		Program: func(e Event) Programming {
			return ProgramCounters(bank, vendor, e, name, decorate)
		},
	}
}
