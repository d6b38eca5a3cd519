package halhost

import (
	"sync"

	"github.com/proflab/proflab/halplugins/hal"
)

// Hardware is the lab's simulated hardware, the sink of every HAL call's
// programming. The simulator (core/) implements it; Apply is called after
// each HAL call that implied programming, in call order, with the
// programming already checked (processors in range and addressed by the
// call, counter indexes 0…7, periods and reloads >= 1). halName is the
// HAL's config name; each HAL owns its own bank of units per processor
// (see hal.Programming). An error stops the machine.
//
// Running reports whether the processors are running now: programming
// then takes effect at once, so a plugin HAL waits for the answer of
// every call instead of applying some answers later (MachineHAL.Settle).
type Hardware interface {
	Apply(halName string, p hal.Programming) error
	Running() bool
}

// Discard is Hardware that ignores all programming.
type Discard struct{}

// Apply does nothing.
func (Discard) Apply(string, hal.Programming) error { return nil }

// Running is false: Discard never runs.
func (Discard) Running() bool { return false }

// Applied is one Apply call a Recorder saw.
type Applied struct {
	HAL         string
	Programming hal.Programming
}

// Recorder is Hardware that records every Apply call, for tests and for
// `proflab hal` diagnostics. It is safe for concurrent use.
type Recorder struct {
	mu      sync.Mutex
	applied []Applied
	// InRun makes Running report true, as the simulator does during a run.
	InRun bool
}

// Running reports r.InRun.
func (r *Recorder) Running() bool { return r.InRun }

// Apply records p.
func (r *Recorder) Apply(halName string, p hal.Programming) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.applied = append(r.applied, Applied{HAL: halName, Programming: p})
	return nil
}

// Applied returns a copy of what was applied so far.
func (r *Recorder) Applied() []Applied {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Applied(nil), r.applied...)
}

var (
	_ Hardware = Discard{}
	_ Hardware = (*Recorder)(nil)
)
