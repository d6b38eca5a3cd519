package lab

import (
	"fmt"
	"slices"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// Overrides are the machine fields that a scenario (lab.machine{...}) or
// another caller sets over a configuration's [machine] table. A nil field
// keeps the configuration's value.
type Overrides struct {
	Version, Arch, Vendor *string
	CPUs, FreqMHz         *int
	PEBS                  *bool
	Seed                  *uint64
	// HALs, when non-nil, replaces the configuration's HAL list.
	HALs []string
	// CacheErrataInterval, when non-zero, models the cache-errata clamp
	// of ProfileTime.
	CacheErrataInterval uint32
}

// FieldError is Resolve's error about one field of the machine.
type FieldError struct {
	// Field is the field's name as lab.machine{...} and the [machine]
	// table spell it ("version", "arch", "cpus", …).
	Field string
	// Msg says what is wrong with it and what to do.
	Msg string
}

// Error implements error: "machine.FIELD: MSG", as the configuration key.
func (e *FieldError) Error() string { return "machine." + e.Field + ": " + e.Msg }

// Resolve turns a configuration's [machine] table (as loaded, its
// defaults filled in) and the overrides over it into the spec of a
// machine, the one place where a machine description is resolved for the
// Lua runtime, the command line and sweeps: the version and architecture
// are parsed, the architecture defaults to x86 before Windows 5.2 (which
// had no x64 build, and refuses one), the processors default to the
// configured number clamped to the architecture's maximum and an
// overridden number must fit it, and seed is the machine's seed unless
// overridden. Errors are *FieldError.
func Resolve(m config.Machine, o Overrides, seed uint64) (Spec, error) {
	pick := func(over *string, def string) string {
		if over != nil {
			return *over
		}
		return def
	}
	ver, err := kernel.ParseVersion(pick(o.Version, m.Version))
	if err != nil {
		return Spec{}, &FieldError{"version", err.Error()}
	}
	archDefault := m.Arch
	if ver.Before("5.2") {
		archDefault = "x86" // no x64 build before 5.2
	}
	arch, err := kernel.ParseArch(pick(o.Arch, archDefault))
	if err != nil {
		return Spec{}, &FieldError{"arch", err.Error()}
	}
	if arch == kernel.X64 && ver.Before("5.2") {
		return Spec{}, &FieldError{"arch", fmt.Sprintf("Windows %s had no x64 build (x64 starts with 5.2); use arch = \"x86\"", ver)}
	}
	cpus := min(m.CPUs, arch.MaxCPUs())
	if o.CPUs != nil {
		if cpus = *o.CPUs; cpus < 1 || cpus > arch.MaxCPUs() {
			return Spec{}, &FieldError{"cpus", fmt.Sprintf("%d is out of range; expected a whole number from 1 to %d", cpus, arch.MaxCPUs())}
		}
	}
	vendor := pick(o.Vendor, m.CPUVendor)
	if !slices.Contains([]string{nt.VendorIntel, nt.VendorAMD}, vendor) {
		return Spec{}, &FieldError{"cpu_vendor", fmt.Sprintf("%q is not accepted; expected one of %q, %q", vendor, nt.VendorIntel, nt.VendorAMD)}
	}
	s := Spec{
		Version: ver, Arch: arch, CPUs: cpus, Vendor: vendor, PEBS: m.PEBS, FreqMHz: m.FreqMHz, Seed: seed,
		HALs: slices.Clone(m.HAL), CacheErrataInterval: o.CacheErrataInterval,
	}
	if o.PEBS != nil {
		s.PEBS = *o.PEBS
	}
	if o.FreqMHz != nil {
		s.FreqMHz = *o.FreqMHz
	}
	if s.FreqMHz < 1 || s.FreqMHz > 1_000_000 {
		return Spec{}, &FieldError{"freq_mhz", fmt.Sprintf("%d is out of range; expected a whole number from 1 to 1000000", s.FreqMHz)}
	}
	if o.Seed != nil {
		s.Seed = *o.Seed
	}
	if o.HALs != nil {
		s.HALs = slices.Clone(o.HALs)
	}
	return s, nil
}
