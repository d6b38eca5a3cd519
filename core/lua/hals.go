package luart

import (
	"fmt"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/pebs"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// MachineSpec is what a machine's HALs are told about it when they are
// opened (the plugins' configure call), and where their hardware
// programming goes.
type MachineSpec struct {
	Version kernel.Version
	Arch    kernel.Arch
	CPUs    int
	Vendor  string // nt.VendorIntel or nt.VendorAMD
	PEBS    bool
	FreqMHz int
	Seed    uint64
	// Hardware receives every HAL call's hardware programming: the
	// machine's simulated processors (core/sim). nil discards it.
	Hardware Hardware
	// HALSettings are, per HAL name, settings merged key by key over the
	// configuration's for this machine only (lab.machine{ hal_settings =
	// {...} }); nil for none.
	HALSettings map[string]map[string]any
}

// Hardware is the sink of the HALs' hardware programming (the method set
// of halhost.Hardware, which core/sim's Sim implements).
type Hardware interface {
	Apply(halName string, p hal.Programming) error
}

// HALProvider builds the HALs of one machine from the names its
// `hal = {...}` field lists. It is the seam between the Lua bindings and
// the HAL plugin host: the runtime asks it once per lab.machine{...}.
type HALProvider interface {
	// Names lists the HAL names that may be asked for, for checking and
	// messages.
	Names() []string
	// Open returns one kernel.HAL per name, in order, and a function that
	// releases them (called when the run ends). An error means a HAL could
	// not be made ready (a plugin failed to start or to configure).
	Open(names []string, spec MachineSpec) (hals []kernel.HAL, release func(), err error)
}

// TestHALs is the HALProvider of the kernel's in-process test HALs, used
// when no plugin host is configured: "apic" (ProfileTime), "pmu" (the
// vendor's counter sources) and "pebs" (the PEBS-capable Intel sources;
// nothing on AuthenticAMD), each with the standard bounds and clamping.
type TestHALs struct{}

// Names implements HALProvider.
func (TestHALs) Names() []string { return []string{"apic", "pmu", "pebs"} }

// Open implements HALProvider.
func (TestHALs) Open(names []string, spec MachineSpec) ([]kernel.HAL, func(), error) {
	for n := range spec.HALSettings {
		return nil, nil, fmt.Errorf("hal_settings.%s: the in-process test HALs take no settings", n)
	}
	hals := make([]kernel.HAL, 0, len(names))
	for _, n := range names {
		switch n {
		case "apic":
			hals = append(hals, kernel.NewTestHAL("apic", nt.ProfileTime))
		case "pmu":
			counters := nt.IntelCounterSources
			if spec.Vendor == nt.VendorAMD {
				counters = nt.AMDCounterSources
			}
			hals = append(hals, kernel.NewTestHAL("pmu", counters...))
		case "pebs":
			var srcs []nt.Source
			if spec.Vendor != nt.VendorAMD {
				srcs = pebs.Sources()
			}
			hals = append(hals, kernel.NewTestHAL("pebs", srcs...))
		default:
			return nil, nil, fmt.Errorf("no HAL named %q (the in-process HALs are apic, pmu and pebs)", n)
		}
	}
	return hals, func() {}, nil
}

// HostHALs is the HALProvider of a plugin host: the HALs of the
// configuration ([hal.NAME]), each machine getting its own instance of
// each HAL it lists, released when the run ends.
type HostHALs struct {
	Host     *halhost.Host
	HALNames []string // the configured names (config.Config.HALNames)
}

// Names implements HALProvider.
func (h *HostHALs) Names() []string { return h.HALNames }

// Open implements HALProvider.
func (h *HostHALs) Open(names []string, spec MachineSpec) ([]kernel.HAL, func(), error) {
	m := hal.Machine{
		CPUs:    spec.CPUs,
		FreqMHz: uint32(spec.FreqMHz),
		Vendor:  spec.Vendor,
		Arch:    spec.Arch.String(),
		Version: spec.Version.String(),
		Seed:    spec.Seed,
	}
	var hw halhost.Hardware = halhost.Discard{}
	if spec.Hardware != nil {
		hw = spec.Hardware
	}
	mhs, err := h.Host.OpenMachineWith(names, m, hw, spec.HALSettings)
	if err != nil {
		return nil, nil, err
	}
	out := make([]kernel.HAL, len(mhs))
	for i, mh := range mhs {
		out[i] = mh
	}
	release := func() {
		for _, mh := range mhs {
			_ = mh.Close()
		}
	}
	return out, release, nil
}

// MachineDefaults are the defaults of lab.machine{...}'s fields, from the
// configuration's [machine] table; zero fields take lua-api.md's defaults.
type MachineDefaults struct {
	Version string   // "10.0.19041"
	Arch    string   // "x64" ("x86" for versions before 5.2 whatever this says)
	CPUs    int      // 4
	Vendor  string   // "GenuineIntel"
	PEBS    *bool    // true
	FreqMHz int      // 3000
	HAL     []string // {"apic", "pmu", "pebs"}
}

// withContractDefaults fills the zero fields with lua-api.md's defaults.
func (d MachineDefaults) withContractDefaults() MachineDefaults {
	if d.Version == "" {
		d.Version = kernel.DefaultVersion
	}
	if d.Arch == "" {
		d.Arch = "x64"
	}
	if d.CPUs == 0 {
		d.CPUs = 4
	}
	if d.Vendor == "" {
		d.Vendor = nt.VendorIntel
	}
	if d.PEBS == nil {
		t := true
		d.PEBS = &t
	}
	if d.FreqMHz == 0 {
		d.FreqMHz = 3000
	}
	if d.HAL == nil {
		d.HAL = []string{"apic", "pmu", "pebs"}
	}
	return d
}

// ShippedInproc is the HALProvider a runtime uses when it is given none:
// the default configuration's HALs (apic, pmu, pebs) with their shipped
// logic running in-process, so that no plugin executable is needed and
// m:run raises interrupts exactly as through the plugins.
func ShippedInproc() HALProvider {
	cfg := config.Default()
	for name, h := range cfg.HAL {
		h.Transport = config.TransportInproc
		cfg.HAL[name] = h
	}
	return &HostHALs{Host: halhost.New(cfg.HAL, halhost.Options{}), HALNames: cfg.HALNames()}
}
