package pmu

import "github.com/proflab/proflab/halplugins/hal"

// Bank allocates the performance counters of every processor of one
// machine: which counter index counts which source on which processor. It
// is shared by the pmu and pebs HALs.
type Bank struct {
	slots [][]bankSlot // [cpu][index]
}

type bankSlot struct {
	used bool
	src  hal.Source
}

// NewBank returns a bank of counters counters on each of cpus processors.
func NewBank(cpus, counters int) *Bank {
	b := &Bank{slots: make([][]bankSlot, cpus)}
	for i := range b.slots {
		b.slots[i] = make([]bankSlot, counters)
	}
	return b
}

// Find returns the counter counting src on cpu, if any.
func (b *Bank) Find(cpu int, src hal.Source) (int, bool) {
	for i, s := range b.slots[cpu] {
		if s.used && s.src == src {
			return i, true
		}
	}
	return 0, false
}

// Allocate returns the counter counting src on cpu, taking the lowest free
// one if none does yet; false if every counter of cpu is busy.
func (b *Bank) Allocate(cpu int, src hal.Source) (int, bool) {
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
func (b *Bank) Free(cpu int, src hal.Source) (int, bool) {
	i, ok := b.Find(cpu, src)
	if ok {
		b.slots[cpu][i] = bankSlot{}
	}
	return i, ok
}

// Busy returns the sources counted on cpu, by counter index (unused
// counters omitted).
func (b *Bank) Busy(cpu int) []hal.Source {
	var out []hal.Source
	for _, s := range b.slots[cpu] {
		if s.used {
			out = append(out, s.src)
		}
	}
	return out
}

// InUse returns how many counters of cpu are busy.
func (b *Bank) InUse(cpu int) int { return len(b.Busy(cpu)) }

// Clear frees every counter.
func (b *Bank) Clear() {
	for _, c := range b.slots {
		clear(c)
	}
}
