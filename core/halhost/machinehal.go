package halhost

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// MachineHAL is one machine's HAL instance of one configured HAL, as the
// kernel sees it: it implements kernel.HALDispatch by forwarding to the
// instance (a plugin or in-process), checks every answer, hands each call's
// programming to the machine's Hardware and returns the kernel-relevant
// part. Errors name the HAL, where it runs and the call; a plugin answer
// that makes no sense is an error, never a panic.
type MachineHAL struct {
	name    string
	where   string // "plugin /path" or "in-process"
	inst    hal.Instance
	machine hal.Machine
	hw      Hardware
	log     *slog.Logger

	desc      hal.Description
	abilities hal.Abilities
	sources   []kernel.SourceDescriptor
	bounds    map[nt.Source]nt.Bounds

	calls atomic.Int64 // calls made to the instance

	proc process // the plugin process serving inst; nil in-process

	// pipe orders the calls of the machine's HALs when some are sent
	// without waiting (halrpc.Pipeline); later is inst when it can send
	// them (a plugin instance in pipe), nil otherwise.
	pipe  *halrpc.Pipeline
	later halrpc.Pipelined

	mu     sync.Mutex
	failed error // the first failure; later calls repeat it
}

var _ kernel.HALDispatch = (*MachineHAL)(nil)

// NewMachineHAL wraps a configured instance for one machine: it describes
// it once and checks the description. name is the HAL's config name,
// where says where it runs (for errors), hw receives its programming (nil
// discards it), log receives its programming's log lines (nil discards).
func NewMachineHAL(name, where string, inst hal.Instance, m hal.Machine, hw Hardware, log *slog.Logger) (*MachineHAL, error) {
	h := newMachineHAL(name, where, inst, m, hw, log)
	d, err := inst.Describe()
	if err != nil {
		return nil, h.wrap("describe", err)
	}
	a, err := inst.Abilities()
	if err != nil {
		return nil, h.wrap("abilities", err)
	}
	if err := h.described(d, a); err != nil {
		return nil, err
	}
	return h, nil
}

func newMachineHAL(name, where string, inst hal.Instance, m hal.Machine, hw Hardware, log *slog.Logger) *MachineHAL {
	if hw == nil {
		hw = Discard{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &MachineHAL{name: name, where: where, inst: inst, machine: m, hw: hw, log: log.With("hal", name)}
	h.calls.Add(3) // the configure call that readied inst, describe and abilities
	return h
}

// described checks and keeps the instance's description and abilities.
func (h *MachineHAL) described(d hal.Description, a hal.Abilities) error {
	if err := d.Validate(); err != nil {
		return h.wrap("describe", fmt.Errorf("nonsense answer: %w", err))
	}
	h.desc, h.abilities = d, a
	h.bounds = make(map[nt.Source]nt.Bounds, len(d.Sources))
	for _, s := range d.Sources {
		h.sources = append(h.sources, kernel.SourceDescriptor{
			Source: s.Source, Name: s.Name, Description: s.Description, Units: s.Units, Bounds: s.Bounds, Precise: s.Precise,
		})
		h.bounds[s.Source] = s.Bounds
	}
	return nil
}

// settleFirst applies the answers of the calls the machine's HALs sent
// without waiting, before a call of an instance that does not do it
// itself (an in-process one). A plugin instance in the pipeline settles
// it after sending its own call, so that the answers travel together.
func (h *MachineHAL) settleFirst() {
	if h.later == nil {
		_ = h.pipe.Settle() // failures reach the HAL that failed
	}
}

// Settle applies the answers of every call the machine's HALs sent
// without waiting for them, in the order they were made, and reports
// this HAL's failure, if it has failed. A run settles its HALs before the
// simulated processors run, and when its script ends.
func (h *MachineHAL) Settle() error {
	_ = h.pipe.Settle()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failed
}

// canDefer reports whether a call whose answer the kernel does not need
// may be sent without waiting: the instance can, and the simulated
// processors are not running (during a run, programming takes effect at
// once).
func (h *MachineHAL) canDefer() bool {
	return h.later != nil && !h.hw.Running()
}

// process is the part of a plugin process (*halrpc.Client) a MachineHAL
// watches.
type process interface {
	Done() <-chan struct{}
	Err() error
	Path() string   // the executable, as started
	SHA256() string // the sha256 of the bytes it was started from
}

// Plugin says what serves this HAL: its configuration name and the HAL's
// own name and version, and for a plugin the executable its process was
// started from — the path and the sha256 of the bytes that process runs,
// taken when it was started (halrpc.Client.SHA256), not when the run or
// the sweep began: a plugin rebuilt since, and restarted after a crash,
// says so. In-process, the transport is "inproc" and there is no file.
func (h *MachineHAL) Plugin() Plugin {
	p := Plugin{HAL: h.name, Transport: config.TransportInproc, Name: h.desc.Name, Version: h.desc.Version}
	if h.proc != nil {
		p.Transport, p.Path, p.SHA256, p.Protocol = config.TransportPlugin, h.proc.Path(), h.proc.SHA256(), halrpc.ProtocolVersion
	}
	return p
}

// Done is closed when the plugin process serving this HAL has exited (nil,
// never closed, for an in-process HAL): a run watches it to notice a plugin
// that dies while no call is in flight.
func (h *MachineHAL) Done() <-chan struct{} {
	if h.proc == nil {
		return nil
	}
	return h.proc.Done()
}

// Err says why the plugin process is gone once Done is closed: an error
// naming the HAL and the exit status, or nil when the host stopped it.
func (h *MachineHAL) Err() error {
	if h.proc == nil {
		return nil
	}
	if err := h.proc.Err(); err != nil {
		return fmt.Errorf("hal %q (%s) died during the run: %w", h.name, h.where, err)
	}
	return nil
}

func (h *MachineHAL) wrap(call string, err error) error {
	var pe *hal.PanicError
	if errors.As(err, &pe) && h.log != nil {
		// in-process: the stack goes to the log, as a plugin's does
		h.log.Error(pe.Error(), "stack", string(pe.Stack))
	}
	return fmt.Errorf("hal %q (%s): %s: %w", h.name, h.where, call, err)
}

// fail records the first failure and returns it: a call that fails
// because an earlier one did (a configure answered after it was sent)
// reports the earlier one.
func (h *MachineHAL) fail(call string, err error) error {
	if errors.Is(err, halrpc.ErrExited) {
		// Which call finds a dead plugin depends on timing (a deferred
		// call's answer may be lost with the process): the error says
		// that it died, as between calls (Err), and the log which call.
		h.log.Warn("the plugin process was found gone", "call", call)
		err = fmt.Errorf("hal %q (%s) died during the run: %w", h.name, h.where, err)
	} else {
		err = h.wrap(call, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failed == nil {
		h.failed = err
	}
	return h.failed
}

func (h *MachineHAL) broken() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failed != nil {
		return fmt.Errorf("hal %q failed earlier in this run: %w", h.name, h.failed)
	}
	return nil
}

// Calls returns how many HAL calls the instance has answered over its
// life for this machine: configure, describe and abilities when it was
// opened, every kernel and lab call since, and close. Through a plugin
// each is a round trip, except describe and abilities, which the
// configure call answers (Host.RoundTrips counts the round trips).
func (h *MachineHAL) Calls() int64 { return h.calls.Load() }

// Name is the HAL's config name.
func (h *MachineHAL) Name() string { return h.name }

// Description is what the HAL described.
func (h *MachineHAL) Description() hal.Description { return h.desc }

// Abilities are the HAL's optional abilities.
func (h *MachineHAL) Abilities() hal.Abilities { return h.abilities }

// Sources returns the described sources, in source order.
func (h *MachineHAL) Sources() []kernel.SourceDescriptor {
	return append([]kernel.SourceDescriptor(nil), h.sources...)
}

func callName(call string, src nt.Source, cpus []int) string {
	return fmt.Sprintf("%s %s on processors %v", call, src, cpus)
}

// apply checks p and hands it to the hardware.
func (h *MachineHAL) apply(call string, p hal.Programming, addressed []int) error {
	if err := checkProgramming(p, h.machine.CPUs, addressed); err != nil {
		return h.fail(call, fmt.Errorf("nonsense answer: %w", err))
	}
	for _, l := range p.Log {
		h.log.Info(l)
	}
	if p.Empty() {
		return nil
	}
	if err := h.hw.Apply(h.name, p); err != nil {
		return h.fail(call, fmt.Errorf("applying its programming: %w", err))
	}
	return nil
}

// QuerySource is HalProfileSourceInformation on each processor.
func (h *MachineHAL) QuerySource(cpus []int, src nt.Source) ([]kernel.SourceInfo, error) {
	if err := h.broken(); err != nil {
		return nil, err
	}
	call := callName("query", src, cpus)
	h.calls.Add(1)
	h.settleFirst()
	info, err := h.inst.QuerySource(cpus, src)
	if err != nil {
		return nil, h.fail(call, err)
	}
	if err := h.broken(); err != nil {
		return nil, err
	}
	if len(info) != len(cpus) {
		return nil, h.fail(call, fmt.Errorf("nonsense answer: %d entries for %d processors", len(info), len(cpus)))
	}
	b, described := h.bounds[src]
	out := make([]kernel.SourceInfo, len(info))
	for i, v := range info {
		if described && v.Supported && (v.Interval < b.Min || v.Interval > b.Max) {
			return nil, h.fail(call, fmt.Errorf("nonsense answer: processor %d's interval %d is outside the described bounds [%d, %d]", cpus[i], v.Interval, b.Min, b.Max))
		}
		out[i] = kernel.SourceInfo{Supported: v.Supported, Interval: v.Interval}
	}
	return out, nil
}

// SetInterval is HalProfileSourceInterval on each processor.
func (h *MachineHAL) SetInterval(cpus []int, src nt.Source, interval uint32) ([]uint32, error) {
	if err := h.broken(); err != nil {
		return nil, err
	}
	call := fmt.Sprintf("set %s to %d on processors %v", src, interval, cpus)
	h.calls.Add(1)
	h.settleFirst()
	eff, p, err := h.inst.SetInterval(cpus, src, interval)
	if err != nil {
		return nil, h.fail(call, err)
	}
	if err := h.broken(); err != nil {
		return nil, err
	}
	if len(eff) != len(cpus) {
		return nil, h.fail(call, fmt.Errorf("nonsense answer: %d effective intervals for %d processors", len(eff), len(cpus)))
	}
	if b, ok := h.bounds[src]; ok {
		for i, v := range eff {
			if v < b.Min || v > b.Max {
				return nil, h.fail(call, fmt.Errorf("nonsense answer: processor %d's effective interval %d is outside the described bounds [%d, %d]", cpus[i], v, b.Min, b.Max))
			}
		}
	}
	if err := h.apply(call, p, cpus); err != nil {
		return nil, err
	}
	return eff, nil
}

// NumberOfCounters is HalQueryProfileNumberOfCounters: the HAL's counters
// per processor, at most hal.MaxCounters.
func (h *MachineHAL) NumberOfCounters() (uint32, error) {
	if err := h.broken(); err != nil {
		return 0, err
	}
	h.calls.Add(1)
	h.settleFirst()
	n, err := h.inst.NumberOfCounters()
	if err != nil {
		return 0, h.fail("number of counters", err)
	}
	if err := h.broken(); err != nil {
		return 0, err
	}
	if n > hal.MaxCounters {
		return 0, h.fail("number of counters", fmt.Errorf("nonsense answer: %d counters per processor, more than any processor has (at most %d)", n, hal.MaxCounters))
	}
	return n, nil
}

// StartInterrupt is HalStartProfileInterrupt on each processor. It
// returns nothing to the kernel, so a plugin instance sends it without
// waiting when the processors are not running: its programming is applied
// when the machine's calls settle (see Settle).
func (h *MachineHAL) StartInterrupt(cpus []int, src nt.Source) error {
	call := callName("start", src, cpus)
	if h.canDefer() {
		return h.deferCall(call, cpus, func(then func(hal.Programming, error) error) error {
			return h.later.StartInterruptLater(cpus, src, then)
		})
	}
	return h.programCall(call, cpus, func() (hal.Programming, error) { return h.inst.StartInterrupt(cpus, src) })
}

// StopInterrupt is HalStopProfileInterrupt on each processor, sent as
// StartInterrupt is.
func (h *MachineHAL) StopInterrupt(cpus []int, src nt.Source) error {
	call := callName("stop", src, cpus)
	if h.canDefer() {
		return h.deferCall(call, cpus, func(then func(hal.Programming, error) error) error {
			return h.later.StopInterruptLater(cpus, src, then)
		})
	}
	return h.programCall(call, cpus, func() (hal.Programming, error) { return h.inst.StopInterrupt(cpus, src) })
}

// deferCall sends a programming call without waiting; its answer is
// checked and applied when the machine's calls settle.
func (h *MachineHAL) deferCall(call string, addressed []int, send func(then func(hal.Programming, error) error) error) error {
	if err := h.broken(); err != nil {
		return err
	}
	h.calls.Add(1)
	return send(func(p hal.Programming, err error) error {
		if err != nil {
			return h.fail(call, err)
		}
		return h.apply(call, p, addressed)
	})
}

// Reset returns the instance to its configured state between runs and
// applies the programming that implies. A HAL that failed stays failed.
func (h *MachineHAL) Reset() error {
	return h.programCall("reset", nil, h.inst.Reset)
}

// RefillTimer asks a TimerRefiller HAL for more one-shot periods for the
// processors whose queues ran dry (the simulator calls it).
func (h *MachineHAL) RefillTimer(cpus []int) error {
	if !h.abilities.TimerRefiller {
		return h.wrap(fmt.Sprintf("refill timer on processors %v", cpus), hal.ErrUnsupported)
	}
	return h.programCall(fmt.Sprintf("refill timer on processors %v", cpus), cpus, func() (hal.Programming, error) { return h.inst.RefillTimer(cpus) })
}

// ControlArea tells a ControlAreaObserver HAL that processors gained or
// lost a PEBS control area; other HALs are not called.
func (h *MachineHAL) ControlArea(cpus []int, present bool) error {
	if !h.abilities.ControlAreaObserver {
		return nil
	}
	return h.programCall(fmt.Sprintf("control area present=%v on processors %v", present, cpus), cpus, func() (hal.Programming, error) {
		return h.inst.ControlArea(cpus, present)
	})
}

// Interrupts hands an InterruptHook HAL a batch of interrupts (at most
// hal.InterruptBatchMax); other HALs are not called.
func (h *MachineHAL) Interrupts(batch []hal.Interrupt) error {
	if !h.abilities.InterruptHook || len(batch) == 0 {
		return nil
	}
	return h.programCall(fmt.Sprintf("interrupts (%d)", len(batch)), nil, func() (hal.Programming, error) { return h.inst.Interrupts(batch) })
}

func (h *MachineHAL) programCall(call string, addressed []int, fn func() (hal.Programming, error)) error {
	if err := h.broken(); err != nil {
		return err
	}
	h.calls.Add(1)
	h.settleFirst()
	p, err := fn()
	if err != nil {
		return h.fail(call, err)
	}
	if err := h.broken(); err != nil {
		return err
	}
	return h.apply(call, p, addressed)
}

// Close releases the instance (the plugin process stays, for other
// machines and runs).
func (h *MachineHAL) Close() error {
	h.calls.Add(1)
	if err := h.inst.Close(); err != nil && !errors.Is(err, hal.ErrUnsupported) {
		return h.wrap("close", err)
	}
	return nil
}
