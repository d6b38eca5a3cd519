package kernel

import (
	"fmt"
	"sort"

	"github.com/proflab/proflab/kernel/nt"
)

// HALCall is one row of the machine's log of calls into the HAL: one per
// processor a call addressed, in the shape m:hal_log() returns.
type HALCall struct {
	HAL      string    // the HAL owning the source; "" when none does
	CPU      int       // the processor addressed
	Call     string    // "query", "set", "start", "stop" or "counters" (HalQueryProfileNumberOfCounters)
	Class    int       // HAL information class: 1 for query, 0 for set, 0x2C for counters; -1 otherwise
	Source   nt.Source // the source asked about
	Interval uint32    // set: what the kernel passed; query: what the HAL answered; counters: the count
	// HasInterval is false for start and stop, which carry no interval.
	HasInterval bool
	Supported   bool // query only
}

// HALHook runs at the start of every call the kernel makes into a HAL,
// before the HAL acts on it: call is "query", "set", "start", "stop" or
// "counters", hal the HAL's name ("" for a source no HAL supports: the
// call the kernel makes then reaches no HAL, as HALLog logs it), src the
// source (0 for "counters"), cpus the processors addressed. It may change the machine's state (turn
// tracing on in the middle of NtSetIntervalProfile, item 84 of
// docs/reference/conformance.md): the
// kernel carries on from where it was. HAL calls the hook itself causes do
// not run it again. An error stops the machine and is returned as a
// *HookError.
type HALHook func(call, hal string, src nt.Source, cpus []int) error

// OnHALCall installs the machine's HALHook (nil removes it).
func (m *Machine) OnHALCall(f HALHook) { m.halHook = f }

// hook runs the HALHook, if any, for a call about to be made.
// hal is the name of the HAL owning the source, "" when none does.
func (m *Machine) hook(call, hal string, src nt.Source, cpus []int) error {
	if m.halHook == nil || m.inHook {
		return nil
	}
	m.inHook = true
	err := m.halHook(call, hal, src, append([]int(nil), cpus...))
	m.inHook = false
	if err != nil {
		e := &HookError{HAL: hal, Call: call, Err: err}
		if m.halted == nil {
			m.halted = e
		}
		return e
	}
	return nil
}

// HookError is the error of the lab's HAL-call hook (OnHALCall): the
// hook's own failure, not the HAL's. The machine stops (the service call
// it interrupted cannot go on), and the error is the caller's to report
// as its own (a scenario's error, not a HAL plugin's).
type HookError struct {
	HAL, Call string
	Err       error
}

func (e *HookError) Error() string {
	if e.HAL == "" {
		return fmt.Sprintf("the HAL-call hook failed before a %s no HAL serves: %v", e.Call, e.Err)
	}
	return fmt.Sprintf("the HAL-call hook failed before %s's %s: %v", e.HAL, e.Call, e.Err)
}

func (e *HookError) Unwrap() error { return e.Err }

// HALLog returns every call the kernel made into the HAL since the machine
// was created, oldest first.
func (m *Machine) HALLog() []HALCall { return append([]HALCall(nil), m.halLog...) }

// SourceState is what hal_sources reports about one supported source.
type SourceState struct {
	SourceDescriptor
	HAL       string
	Supported bool
	Interval  uint32 // the current interval on processor 0
}

// HALSources lists every source some HAL of the machine supports, in
// source order, with its current interval. It is the lab's inspection:
// the queries it makes are not in HALLog.
func (m *Machine) HALSources() ([]SourceState, error) {
	out := make([]SourceState, 0, len(m.descs))
	for _, d := range m.descs {
		h := m.cfg.HALs[m.owner[d.Source]]
		info, err := h.QuerySource([]int{0}, d.Source)
		if err != nil {
			return nil, m.halFailed(h, "query", err)
		}
		st := SourceState{SourceDescriptor: d, HAL: h.Name()}
		if len(info) > 0 {
			st.Supported, st.Interval = info[0].Supported, info[0].Interval
		}
		out = append(out, st)
	}
	return out, nil
}

// Descriptors returns the composed HAL's source descriptors in source order.
func (m *Machine) Descriptors() []SourceDescriptor {
	return append([]SourceDescriptor(nil), m.descs...)
}

func sortDescs(d []SourceDescriptor) {
	sort.Slice(d, func(i, j int) bool { return d[i].Source < d[j].Source })
}

// halFor returns the HAL owning src, or nil.
func (m *Machine) halFor(src nt.Source) HALDispatch {
	if i, ok := m.owner[src]; ok {
		return m.cfg.HALs[i]
	}
	return nil
}

// halName is h's name, "" for none (a source no HAL supports).
func halName(h HALDispatch) string {
	if h == nil {
		return ""
	}
	return h.Name()
}

func (m *Machine) halFailed(h HALDispatch, call string, err error) error {
	e := &HALError{HAL: h.Name(), Call: call, Err: err}
	if m.halted == nil {
		m.halted = e
	}
	return e
}

// HALFailed records a HAL failure the lab noticed outside a kernel call
// (the answer of a call that returns nothing to the kernel, such as
// HalStartProfileInterrupt, read after the call returned): the machine
// stops as if the call had failed, and the error is returned as a
// *HALError.
func (m *Machine) HALFailed(hal, call string, err error) error {
	e := &HALError{HAL: hal, Call: call, Err: err}
	if m.halted == nil {
		m.halted = e
	}
	return e
}

// halQuery is HalQuerySystemInformation(HalProfileSourceInformation) on
// cpus, logged.
func (m *Machine) halQuery(cpus []int, src nt.Source) ([]SourceInfo, error) {
	h := m.halFor(src)
	infos := make([]SourceInfo, len(cpus))
	name := halName(h)
	if err := m.hook("query", name, src, cpus); err != nil {
		return nil, err
	}
	if h != nil {
		got, err := h.QuerySource(cpus, src)
		if err != nil {
			return nil, m.halFailed(h, "query", err)
		}
		if len(got) != len(cpus) {
			return nil, m.halFailed(h, "query", errAnswerCount(len(got), len(cpus)))
		}
		copy(infos, got)
	}
	for i, c := range cpus {
		if !infos[i].Supported {
			infos[i].Interval = 0
		}
		m.halLog = append(m.halLog, HALCall{HAL: name, CPU: c, Call: "query", Class: int(nt.HalProfileSourceInformation),
			Source: src, Interval: infos[i].Interval, HasInterval: true, Supported: infos[i].Supported})
	}
	return infos, nil
}

// halSet is HalSetSystemInformation(HalProfileSourceInterval) on cpus,
// logged. class is -1 for the 3.10/3.50 HalSetProfileInterval path.
func (m *Machine) halSet(cpus []int, src nt.Source, interval uint32, class int) ([]uint32, error) {
	h := m.halFor(src)
	name := halName(h)
	var eff []uint32
	if err := m.hook("set", name, src, cpus); err != nil {
		return nil, err
	}
	if h != nil {
		got, err := h.SetInterval(cpus, src, interval)
		if err != nil {
			return nil, m.halFailed(h, "set", err)
		}
		if len(got) != len(cpus) {
			return nil, m.halFailed(h, "set", errAnswerCount(len(got), len(cpus)))
		}
		eff = got
	}
	for _, c := range cpus {
		m.halLog = append(m.halLog, HALCall{HAL: name, CPU: c, Call: "set", Class: class, Source: src, Interval: interval, HasInterval: true})
	}
	return eff, nil
}

// halStartStop calls HalStart/StopProfileInterrupt on cpus, logged.
func (m *Machine) halStartStop(start bool, cpus []int, src nt.Source) error {
	if len(cpus) == 0 {
		return nil
	}
	call := "stop"
	if start {
		call = "start"
	}
	h := m.halFor(src)
	name := halName(h)
	if err := m.hook(call, name, src, cpus); err != nil {
		return err
	}
	if h != nil {
		var err error
		if start {
			err = h.StartInterrupt(cpus, src)
		} else {
			err = h.StopInterrupt(cpus, src)
		}
		if err != nil {
			return m.halFailed(h, call, err)
		}
	}
	for _, c := range cpus {
		m.halLog = append(m.halLog, HALCall{HAL: name, CPU: c, Call: call, Class: -1, Source: src})
	}
	return nil
}

// acquireSource takes a reference on src for each processor in mask and
// starts the interrupt where it was not yet running.
func (m *Machine) acquireSource(src nt.Source, mask uint64) error {
	var start []int
	for _, c := range cpusOf(mask) {
		k := srcCPU{src, c}
		if m.running[k] == 0 {
			start = append(start, c)
		}
		m.running[k]++
	}
	return m.halStartStop(true, start, src)
}

// releaseSource drops the references and stops the interrupt where no
// user remains.
func (m *Machine) releaseSource(src nt.Source, mask uint64) error {
	var stop []int
	for _, c := range cpusOf(mask) {
		k := srcCPU{src, c}
		if m.running[k] == 0 {
			continue
		}
		m.running[k]--
		if m.running[k] == 0 {
			delete(m.running, k)
			stop = append(stop, c)
		}
	}
	return m.halStartStop(false, stop, src)
}

// Running reports whether the kernel has src's interrupt started on cpu.
func (m *Machine) Running(src nt.Source, cpu int) bool { return m.running[srcCPU{src, cpu}] > 0 }

func errAnswerCount(got, want int) error {
	return fmt.Errorf("answered for %d processors, asked about %d", got, want)
}
