package hal

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
)

// Instance is one HAL instance as a host drives it: in-process ([Local]) or
// across the process boundary (halrpc's client). Settings arrive raw and
// every method may fail; a failure belongs to the HAL or its transport and
// fails the run, it is not an NTSTATUS. Methods are safe for concurrent use
// but are serialised per instance.
type Instance interface {
	// Configure decodes the settings (a JSON object; empty means none)
	// strictly into the HAL's settings and configures it for m. Called
	// once, first.
	Configure(m Machine, settings []byte) error
	// Describe is HAL.Describe, with Settings filled in with the JSON of
	// the HAL's default settings.
	Describe() (Description, error)
	// Reset is HAL.Reset.
	Reset() (Programming, error)
	// QuerySource is HAL.QuerySource.
	QuerySource(cpus []int, src Source) ([]SourceInfo, error)
	// SetInterval is HAL.SetInterval.
	SetInterval(cpus []int, src Source, interval uint32) ([]uint32, Programming, error)
	// StartInterrupt is HAL.StartInterrupt.
	StartInterrupt(cpus []int, src Source) (Programming, error)
	// StopInterrupt is HAL.StopInterrupt.
	StopInterrupt(cpus []int, src Source) (Programming, error)
	// NumberOfCounters is CounterReporter.NumberOfCounters
	// (HalQueryProfileNumberOfCounters); 0 if the HAL is not one.
	NumberOfCounters() (uint32, error)
	// RefillTimer is TimerRefiller.RefillTimer; ErrUnsupported if the HAL
	// is not one.
	RefillTimer(cpus []int) (Programming, error)
	// ControlArea is ControlAreaObserver.ControlArea; a HAL that is not
	// one answers the zero Programming.
	ControlArea(cpus []int, present bool) (Programming, error)
	// Interrupts is InterruptHook.Interrupts; ErrUnsupported if the HAL
	// is not one.
	Interrupts(batch []Interrupt) (Programming, error)
	// Abilities reports the optional interfaces the HAL implements.
	Abilities() (Abilities, error)
	// Close releases the instance. Other calls fail afterwards.
	Close() error
}

// Abilities are the optional interfaces a HAL implements.
type Abilities struct {
	TimerRefiller       bool
	ControlAreaObserver bool
	InterruptHook       bool
}

// ErrUnsupported is returned for an optional call the HAL does not
// implement.
var ErrUnsupported = errors.ErrUnsupported

// Local returns an Instance that runs a fresh HAL from f in this process.
// It decodes settings strictly, checks processor sets against the machine,
// and turns a panic in the HAL into an error naming the call.
func Local(f Factory) Instance {
	return &local{factory: f}
}

// PanicError is the error of a call in which the HAL panicked (Local
// recovers it). Its message is the call and the panic's value, the same
// each time the HAL panics the same way; the goroutine's stack, which
// differs from one process to the next (goroutine ids, addresses), is
// kept apart in Stack, for a log: a plugin's server sends it after the
// message, and the host takes it off into the run's log.
type PanicError struct {
	Call  string // the call, as the instance's errors name it ("set")
	Value any    // what the HAL panicked with
	Stack []byte // the panicking goroutine's stack (runtime/debug.Stack)
}

func (e *PanicError) Error() string { return fmt.Sprintf("%s: the HAL panicked: %v", e.Call, e.Value) }

type local struct {
	mu         sync.Mutex
	factory    Factory
	h          HAL
	machine    Machine
	defaults   string
	configured bool
	closed     bool
}

var _ Instance = (*local)(nil)

// guard runs fn under the lock, after the state checks, converting panics.
func (l *local) guard(call string, needConfig bool, fn func() error) (err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("%s: instance is closed", call)
	}
	if needConfig && !l.configured {
		return fmt.Errorf("%s: instance is not configured (call Configure first)", call)
	}
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Call: call, Value: r, Stack: debug.Stack()}
		}
	}()
	return fn()
}

func (l *local) cpus(call string, cpus []int) error {
	if err := CheckCPUs(cpus, l.machine.CPUs); err != nil {
		return fmt.Errorf("%s: %w", call, err)
	}
	return nil
}

func (l *local) Configure(m Machine, settings []byte) error {
	return l.guard("configure", false, func() error {
		if l.configured {
			return errors.New("configure: instance already configured")
		}
		if err := CheckMachine(m); err != nil {
			return fmt.Errorf("configure: %w", err)
		}
		if l.factory == nil {
			return errors.New("configure: nil factory")
		}
		h := l.factory()
		if h == nil {
			return errors.New("configure: the factory returned nil")
		}
		defaults, err := SampleSettings(h)
		if err != nil {
			return fmt.Errorf("configure: %w", err)
		}
		if err := ApplySettings(h, settings); err != nil {
			return fmt.Errorf("configure: %w", err)
		}
		if err := h.Configure(m); err != nil {
			return fmt.Errorf("configure: %w", err)
		}
		l.h, l.machine, l.defaults, l.configured = h, m, defaults, true
		return nil
	})
}

func (l *local) Describe() (d Description, err error) {
	err = l.guard("describe", true, func() error {
		d = l.h.Describe()
		d.Sources = append([]SourceSpec(nil), d.Sources...)
		d.Settings = l.defaults
		return nil
	})
	return d, err
}

func (l *local) Reset() (p Programming, err error) {
	err = l.guard("reset", true, func() (e error) { p, e = l.h.Reset(); return e })
	return p, err
}

func (l *local) QuerySource(cpus []int, src Source) (info []SourceInfo, err error) {
	err = l.guard("query", true, func() (e error) {
		if e = l.cpus("query", cpus); e != nil {
			return e
		}
		info, e = l.h.QuerySource(cpus, src)
		return e
	})
	return info, err
}

func (l *local) SetInterval(cpus []int, src Source, interval uint32) (eff []uint32, p Programming, err error) {
	err = l.guard("set", true, func() (e error) {
		if e = l.cpus("set", cpus); e != nil {
			return e
		}
		eff, p, e = l.h.SetInterval(cpus, src, interval)
		return e
	})
	return eff, p, err
}

func (l *local) StartInterrupt(cpus []int, src Source) (p Programming, err error) {
	err = l.guard("start", true, func() (e error) {
		if e = l.cpus("start", cpus); e != nil {
			return e
		}
		p, e = l.h.StartInterrupt(cpus, src)
		return e
	})
	return p, err
}

func (l *local) StopInterrupt(cpus []int, src Source) (p Programming, err error) {
	err = l.guard("stop", true, func() (e error) {
		if e = l.cpus("stop", cpus); e != nil {
			return e
		}
		p, e = l.h.StopInterrupt(cpus, src)
		return e
	})
	return p, err
}

func (l *local) NumberOfCounters() (n uint32, err error) {
	err = l.guard("number of counters", true, func() (e error) {
		if r, ok := l.h.(CounterReporter); ok {
			n, e = r.NumberOfCounters()
		}
		return e
	})
	return n, err
}

func (l *local) RefillTimer(cpus []int) (p Programming, err error) {
	err = l.guard("refill timer", true, func() (e error) {
		r, ok := l.h.(TimerRefiller)
		if !ok {
			return fmt.Errorf("refill timer: %w: the HAL is not a TimerRefiller", ErrUnsupported)
		}
		if e = l.cpus("refill timer", cpus); e != nil {
			return e
		}
		p, e = r.RefillTimer(cpus)
		return e
	})
	return p, err
}

func (l *local) ControlArea(cpus []int, present bool) (p Programming, err error) {
	err = l.guard("control area", true, func() (e error) {
		if e = l.cpus("control area", cpus); e != nil {
			return e
		}
		if o, ok := l.h.(ControlAreaObserver); ok {
			p, e = o.ControlArea(cpus, present)
		}
		return e
	})
	return p, err
}

func (l *local) Interrupts(batch []Interrupt) (p Programming, err error) {
	err = l.guard("interrupts", true, func() (e error) {
		hk, ok := l.h.(InterruptHook)
		if !ok {
			return fmt.Errorf("interrupts: %w: the HAL is not an InterruptHook", ErrUnsupported)
		}
		if len(batch) > InterruptBatchMax {
			return fmt.Errorf("interrupts: batch of %d records exceeds %d", len(batch), InterruptBatchMax)
		}
		p, e = hk.Interrupts(batch)
		return e
	})
	return p, err
}

func (l *local) Abilities() (a Abilities, err error) {
	err = l.guard("abilities", true, func() error {
		_, a.TimerRefiller = l.h.(TimerRefiller)
		_, a.ControlAreaObserver = l.h.(ControlAreaObserver)
		_, a.InterruptHook = l.h.(InterruptHook)
		return nil
	})
	return a, err
}

func (l *local) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed, l.h = true, nil
	return nil
}

// MaxCPUs is the largest processor count a machine may have (x64).
const MaxCPUs = 64

// CheckMachine reports whether m is a machine a HAL can be configured for.
func CheckMachine(m Machine) error {
	if m.CPUs < 1 || m.CPUs > MaxCPUs {
		return fmt.Errorf("machine has %d processors, want 1…%d", m.CPUs, MaxCPUs)
	}
	if m.FreqMHz == 0 {
		return errors.New("machine frequency is 0 MHz")
	}
	if m.Arch != "x86" && m.Arch != "x64" {
		return fmt.Errorf("machine architecture %q, want \"x86\" or \"x64\"", m.Arch)
	}
	return nil
}
