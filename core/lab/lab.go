// Package lab is proflab's composition root: from a resolved machine
// description and a seed it assembles one lab — the simulated hardware
// (core/sim), the machine's HALs (in-process or plugin processes, from a
// [HALProvider] a worker keeps warm across labs) programming it, and the
// kernel machine (kernel) on those HALs — and tears it down. It is the
// only package that knows how these parts are wired: the Lua bindings
// (core/luart), the CLI and the sweep runner assemble labs through it.
//
// The default machine has one definition, the [machine] table of the
// embedded default configuration (core/config's default.toml);
// [Resolve] reads a configuration's, with what a scenario overrides.
package lab

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/kernel"
)

// Spec describes the machine of one lab to assemble, every field
// resolved.
type Spec struct {
	Version kernel.Version
	Arch    kernel.Arch
	CPUs    int
	Vendor  string // nt.VendorIntel or nt.VendorAMD
	PEBS    bool   // processors pass the kernel's PEBS checks
	FreqMHz int
	// Seed seeds the simulator and is told to the HALs.
	Seed uint64
	// CacheErrataInterval, when non-zero, models the cache-errata clamp
	// of ProfileTime (see kernel.Config).
	CacheErrataInterval uint32
	// HALs are the HAL names, in order: each source belongs to the first
	// that supports it.
	HALs []string
	// Context, when set, bounds the HALs' plugin calls: they end when it
	// ends (the run's budget, Ctrl-C), leaving the plugins running.
	Context context.Context
	// HALSettings are, per HAL name, settings merged key by key over the
	// configuration's for this machine only (lab.machine{ hal_settings =
	// {...} }); nil for none.
	HALSettings map[string]map[string]any
}

// HALMachine is what the machine's HALs are told about it (the plugins'
// configure call).
func (s Spec) HALMachine() hal.Machine {
	return hal.Machine{
		CPUs:    s.CPUs,
		FreqMHz: uint32(s.FreqMHz),
		Vendor:  s.Vendor,
		Arch:    s.Arch.String(),
		Version: s.Version.String(),
		Seed:    s.Seed,
	}
}

// Lab is one assembled lab: a kernel machine on its HALs, with the
// simulated hardware they program attached. Like its machine, it is used
// by one goroutine at a time.
type Lab struct {
	// Machine is the kernel model.
	Machine *kernel.Machine
	// Sim is the simulated hardware, which runs workloads on the machine.
	Sim *sim.Sim
	// Spec is the description the lab was assembled from.
	Spec Spec
	// HALs are the machine's HALs, in Spec.HALs order (a run watches
	// those served by plugin processes to notice their death).
	HALs []kernel.HALDispatch

	release func()
}

// OpenError is the failure to make a lab's HALs ready (a plugin failed to
// start or to configure): a HAL failure, as opposed to a bad description.
type OpenError struct {
	HALs []string
	Err  error
}

// Error says which HALs could not be opened, and why.
func (e *OpenError) Error() string {
	return fmt.Sprintf("opening the HALs %s: %v", strings.Join(e.HALs, ", "), e.Err)
}

// Unwrap returns the provider's error.
func (e *OpenError) Unwrap() error { return e.Err }

// Assemble builds the lab s describes on the HALs p opens: first the
// simulator, then the HALs programming it, then the kernel machine on
// them, attached to the simulator. A HAL failure is an *OpenError or (a
// HAL failing while the machine is built) a *kernel.HALError. On error
// nothing is left open.
func Assemble(p HALProvider, s Spec) (*Lab, error) {
	sm := sim.New(sim.Options{Seed: s.Seed, FreqMHz: s.FreqMHz})
	hals, release, err := p.Open(s.HALs, s, sm)
	if err != nil {
		return nil, &OpenError{HALs: s.HALs, Err: err}
	}
	if release == nil {
		release = func() {}
	}
	km, err := kernel.NewMachine(kernel.Config{
		Version: s.Version, Arch: s.Arch, CPUs: s.CPUs, Vendor: s.Vendor, PEBS: s.PEBS,
		FreqMHz: s.FreqMHz, CacheErrataInterval: s.CacheErrataInterval, HALs: hals,
	})
	if err != nil {
		release()
		return nil, err
	}
	drivers := make([]sim.Driver, len(hals)) // nil for a HAL that drives no hardware (the kernel's test HALs)
	for i, h := range hals {
		if d, ok := h.(sim.Driver); ok {
			drivers[i] = d
		}
	}
	if err := sm.Attach(km, drivers); err != nil {
		release()
		return nil, err
	}
	return &Lab{Machine: km, Sim: sm, Spec: s, HALs: hals, release: release}, nil
}

// Close releases the lab's HALs (their instances in the plugin
// processes, which keep serving the provider's other labs). It is
// idempotent.
func (l *Lab) Close() {
	if l.release != nil {
		l.release()
		l.release = nil
	}
}

// Settle applies the programming of every HAL call the machine sent
// without waiting for its answer (HalStartProfileInterrupt and
// HalStopProfileInterrupt return nothing to the kernel, so a plugin HAL
// sends them and reads the answers later) and returns the first HAL
// failure among them as a *kernel.HALError; the machine then stops. A run
// settles before the processors run; a script settles when it ends.
func (l *Lab) Settle() error {
	for _, h := range l.HALs {
		if s, ok := h.(interface{ Settle() error }); ok {
			if err := s.Settle(); err != nil {
				return l.Machine.HALFailed(h.Name(), "a call the kernel does not wait for", err)
			}
		}
	}
	return nil
}

// IsHALFailure reports whether err (from Assemble) is a HAL's failure
// rather than a bad description.
func IsHALFailure(err error) bool {
	var oe *OpenError
	var he *kernel.HALError
	return errors.As(err, &oe) || errors.As(err, &he)
}

// The wiring this package does, checked at compile time: the simulator is
// the hardware the plugin host's HALs program, and those HALs are the
// kernel's HALs and serve the simulator's own traffic.
var (
	_ halhost.Hardware   = (*sim.Sim)(nil)
	_ kernel.HALDispatch = (*halhost.MachineHAL)(nil)
	_ sim.Driver         = (*halhost.MachineHAL)(nil)
)
