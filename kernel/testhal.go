package kernel

import (
	"fmt"

	"github.com/proflab/proflab/kernel/nt"
)

// TestHAL is the kernel's in-process HAL for its own tests (and for the
// lab before plugins are available): per-processor intervals with the
// documented defaults, clamping sets into the source's bounds, and
// hooks that act in the middle of a call. Real runs use plugins.
type TestHAL struct {
	name     string
	descs    []SourceDescriptor
	interval map[srcCPU]uint32
	running  map[srcCPU]bool

	// OnQuery, OnSet, OnStart and OnStop, when set, run at the start of
	// the corresponding call, before it takes effect (e.g. to turn
	// tracing on in the middle of NtSetIntervalProfile).
	OnQuery, OnSet, OnStart, OnStop func(cpus []int, src nt.Source)
	// Fail, when set, makes every call fail with it.
	Fail error
	// Counters is what NumberOfCounters reports
	// (HalQueryProfileNumberOfCounters): NewTestHAL makes it 4, the
	// shipped pmu HAL's default, when the HAL supports a counter source,
	// else 0.
	Counters uint32
}

var _ HALDispatch = (*TestHAL)(nil)

// NewTestHAL returns a HAL named name supporting sources with the
// standard bounds: nt.TimerBounds for ProfileTime, nt.CounterBounds for
// every other source.
func NewTestHAL(name string, sources ...nt.Source) *TestHAL {
	h := &TestHAL{name: name, interval: map[srcCPU]uint32{}, running: map[srcCPU]bool{}}
	for _, s := range sources {
		b, units := nt.CounterBounds, "events"
		if s == nt.ProfileTime {
			b, units = nt.TimerBounds, "100ns"
		}
		h.descs = append(h.descs, SourceDescriptor{Source: s, Name: s.Name(), Description: s.Description(), Units: units, Bounds: b})
		if s != nt.ProfileTime {
			h.Counters = 4
		}
	}
	sortDescs(h.descs)
	return h
}

// StandardTestHALs returns the in-process stand-ins for the shipped HALs
// for a vendor: "apic" (ProfileTime) and "pmu" (the vendor's counter
// sources).
func StandardTestHALs(vendor string) []HALDispatch {
	counters := nt.IntelCounterSources
	if vendor == nt.VendorAMD {
		counters = nt.AMDCounterSources
	}
	return []HALDispatch{NewTestHAL("apic", nt.ProfileTime), NewTestHAL("pmu", counters...)}
}

// Name implements HALDispatch.
func (h *TestHAL) Name() string { return h.name }

// Sources implements HALDispatch.
func (h *TestHAL) Sources() []SourceDescriptor { return append([]SourceDescriptor(nil), h.descs...) }

func (h *TestHAL) desc(src nt.Source) (SourceDescriptor, bool) {
	for _, d := range h.descs {
		if d.Source == src {
			return d, true
		}
	}
	return SourceDescriptor{}, false
}

// QuerySource implements HALDispatch.
func (h *TestHAL) QuerySource(cpus []int, src nt.Source) ([]SourceInfo, error) {
	if h.Fail != nil {
		return nil, h.Fail
	}
	if h.OnQuery != nil {
		h.OnQuery(cpus, src)
	}
	out := make([]SourceInfo, len(cpus))
	d, ok := h.desc(src)
	for i, c := range cpus {
		if !ok {
			continue
		}
		v, set := h.interval[srcCPU{src, c}]
		if !set {
			v = d.Bounds.Default
		}
		out[i] = SourceInfo{Supported: true, Interval: v}
	}
	return out, nil
}

// SetInterval implements HALDispatch: the value is clamped into the bounds.
func (h *TestHAL) SetInterval(cpus []int, src nt.Source, interval uint32) ([]uint32, error) {
	if h.Fail != nil {
		return nil, h.Fail
	}
	if h.OnSet != nil {
		h.OnSet(cpus, src)
	}
	out := make([]uint32, len(cpus))
	d, ok := h.desc(src)
	for i, c := range cpus {
		if !ok {
			continue
		}
		v := d.Bounds.Clamp(interval)
		h.interval[srcCPU{src, c}] = v
		out[i] = v
	}
	return out, nil
}

// StartInterrupt implements HALDispatch.
func (h *TestHAL) StartInterrupt(cpus []int, src nt.Source) error {
	if h.Fail != nil {
		return h.Fail
	}
	if h.OnStart != nil {
		h.OnStart(cpus, src)
	}
	for _, c := range cpus {
		h.running[srcCPU{src, c}] = true
	}
	return nil
}

// StopInterrupt implements HALDispatch.
func (h *TestHAL) StopInterrupt(cpus []int, src nt.Source) error {
	if h.Fail != nil {
		return h.Fail
	}
	if h.OnStop != nil {
		h.OnStop(cpus, src)
	}
	for _, c := range cpus {
		delete(h.running, srcCPU{src, c})
	}
	return nil
}

// NumberOfCounters implements HAL: Counters.
func (h *TestHAL) NumberOfCounters() (uint32, error) {
	if h.Fail != nil {
		return 0, h.Fail
	}
	return h.Counters, nil
}

// Running reports whether src's interrupt is started on cpu.
func (h *TestHAL) Running(src nt.Source, cpu int) bool { return h.running[srcCPU{src, cpu}] }

// String describes the HAL for messages.
func (h *TestHAL) String() string {
	return fmt.Sprintf("test HAL %q (%d sources)", h.name, len(h.descs))
}
