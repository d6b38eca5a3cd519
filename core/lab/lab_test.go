package lab_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

func defaultSpec(t *testing.T, seed uint64) lab.Spec {
	t.Helper()
	m, err := lab.Resolve(config.Default().Machine, lab.Overrides{}, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestResolveIsTheDefaultMachine(t *testing.T) {
	m := defaultSpec(t, 7)
	if m.Version.String() != kernel.DefaultVersion || m.Arch != kernel.X64 || m.CPUs != 4 || m.Vendor != nt.VendorIntel ||
		!m.PEBS || m.FreqMHz != 3000 || m.Seed != 7 || strings.Join(m.HALs, ",") != "apic,pmu,pebs" {
		t.Errorf("default machine %+v", m)
	}
	hm := m.HALMachine()
	if hm.CPUs != 4 || hm.FreqMHz != 3000 || hm.Arch != "x64" || hm.Version != kernel.DefaultVersion || hm.Seed != 7 {
		t.Errorf("HAL machine %+v", hm)
	}
	bad := config.Default().Machine
	bad.Version = "7.0"
	if _, err := lab.Resolve(bad, lab.Overrides{}, 1); err == nil || !strings.Contains(err.Error(), "machine.version") {
		t.Errorf("bad version: %v", err)
	}
}

// TestAssembleWiresTheParts: the shipped HALs program the simulator,
// which raises the kernel's profile interrupts.
func TestAssembleWiresTheParts(t *testing.T) {
	t.Parallel()
	p := lab.ShippedInproc()
	t.Cleanup(p.Host.Close)
	spec := defaultSpec(t, 1)
	spec.CPUs = 2
	l, err := lab.Assemble(p, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Machine.CPUCount() != 2 || l.Sim.Machine() != l.Machine || l.Spec.CPUs != 2 || l.Machine.Config().FreqMHz != 3000 {
		t.Fatalf("lab %+v", l)
	}
	st := labtest.Lab{M: l.Machine, Sim: l.Sim, P: l.Machine.NewProcess("app", kernel.Token{Privileges: map[int]bool{nt.SeSystemProfilePrivilege: true}, Integrity: kernel.IntegrityHigh})}
	st.SetInterval(t, nt.ProfileTime, 10000) // 1 ms
	st.Profile(t, 0x10000, 0x1000, 4, nt.ProfileTime)
	res, err := l.Sim.Run(10_000, labtest.ThreeFuncs(st.P))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Interrupts["ProfileTime"]; got < 18 || got > 20 {
		t.Errorf("%d ProfileTime interrupts in 10 ms at 1 ms on 2 processors, want about 20 (%+v)", got, res.Interrupts)
	}
	l.Close()
	l.Close() // idempotent
}

type provider struct {
	open     func() ([]kernel.HALDispatch, error)
	released *int
}

func (provider) Names() []string { return []string{"apic"} }
func (p provider) Open(names []string, m lab.Spec, hw halhost.Hardware) ([]kernel.HALDispatch, func(), error) {
	hals, err := p.open()
	return hals, func() { *p.released++ }, err
}

func TestAssembleFailures(t *testing.T) {
	t.Parallel()
	spec := defaultSpec(t, 1)
	spec.HALs = []string{"apic"}

	released := 0
	_, err := lab.Assemble(provider{open: func() ([]kernel.HALDispatch, error) { return nil, errors.New("proflab-hal-apic not found") }, released: &released}, spec)
	var oe *lab.OpenError
	if !errors.As(err, &oe) || !lab.IsHALFailure(err) || err.Error() != "opening the HALs apic: proflab-hal-apic not found" {
		t.Errorf("open failure: %v", err)
	}

	_, err = lab.Assemble(provider{open: func() ([]kernel.HALDispatch, error) { return []kernel.HALDispatch{nil}, nil }, released: &released}, spec)
	if err == nil || lab.IsHALFailure(err) || released != 1 {
		t.Errorf("nil HAL: %v, a HAL failure %v (released %d times, want 1)", err, lab.IsHALFailure(err), released)
	}
	if !lab.IsHALFailure(fmt.Errorf("m:run: %w", &kernel.HALError{HAL: "apic", Call: "query", Err: errors.New("crashed")})) {
		t.Error("a kernel.HALError is a HAL failure")
	}

	spec.CPUs = 0
	_, err = lab.Assemble(provider{open: func() ([]kernel.HALDispatch, error) {
		return []kernel.HALDispatch{kernel.NewTestHAL("apic", nt.ProfileTime)}, nil
	}, released: &released}, spec)
	if err == nil || lab.IsHALFailure(err) || released != 2 {
		t.Errorf("bad machine: %v, a HAL failure %v (released %d times, want 2)", err, lab.IsHALFailure(err), released)
	}
}

// Example assembles the default machine on the shipped HALs running
// in-process and runs a workload on it.
func Example() {
	hals := lab.ShippedInproc()
	defer hals.Host.Close()
	spec, _ := lab.Resolve(config.Default().Machine, lab.Overrides{}, 1)
	l, err := lab.Assemble(hals, spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	states, err := l.Machine.HALSources()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range states {
		if s.Name == "ProfileTime" || s.Name == "ProfileCacheMisses" {
			fmt.Println(s.Name, "is served by", s.HAL)
		}
	}
	fmt.Println(l.Machine.CPUCount(), "processors at", l.Machine.Config().FreqMHz, "MHz")
	// Output:
	// ProfileTime is served by apic
	// ProfileCacheMisses is served by pmu
	// 4 processors at 3000 MHz
}

// TestNewHostHALsServesManyLabs: one worker's provider assembles lab
// after lab on the same HAL host.
func TestNewHostHALsServesManyLabs(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	for name, h := range cfg.HAL {
		h.Transport = config.TransportInproc
		cfg.HAL[name] = h
	}
	p, closeHost := lab.NewHostHALs(cfg, halhost.Options{})
	defer closeHost()
	if strings.Join(p.Names(), ",") != strings.Join(cfg.HALNames(), ",") {
		t.Errorf("names %v, want %v", p.Names(), cfg.HALNames())
	}
	var log strings.Builder
	p.SetLog(&log)
	defer p.SetLog(nil)
	for seed := uint64(1); seed <= 3; seed++ {
		l, err := lab.Assemble(p, defaultSpec(t, seed))
		if err != nil {
			t.Fatal(err)
		}
		if l.Spec.Seed != seed || l.Machine.CPUCount() != 4 {
			t.Errorf("lab %d: %+v", seed, l.Spec)
		}
		l.Close()
	}
	lab.ShippedInproc().SetLog(&log) // a provider without a switchable log ignores it
}

// Spec.HALSettings reach one lab's HALs only, merged over the
// configuration's; the kernel's test HALs refuse them.
func TestHALSettingsPerLab(t *testing.T) {
	p := lab.ShippedInproc()
	spec := defaultSpec(t, 1)
	spec.HALSettings = map[string]map[string]any{"pmu": {"hypervisor_hides_counters": true}, "apic": {"max": int64(5_000_000)}}
	l, err := lab.Assemble(p, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	srcs, err := l.Machine.HALSources()
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) == 0 || srcs[0].Bounds.Max != 5_000_000 || srcs[0].Bounds.Default != 10000 {
		t.Errorf("apic with max = 5000000: %+v", srcs)
	}
	for _, s := range srcs {
		if s.HAL == "pmu" {
			t.Errorf("pmu under a hiding hypervisor still lists %s", s.Name)
		}
	}
	plain, err := lab.Assemble(p, defaultSpec(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if d := plain.Machine.Descriptors(); len(d) < 2 || d[0].Bounds.Max != 1_000_000 {
		t.Errorf("the next lab kept the settings: %+v", d)
	}
	if _, err := lab.Assemble(lab.TestHALs{}, spec); err == nil || !strings.Contains(err.Error(), "take no settings") {
		t.Errorf("test HALs with settings: %v", err)
	}
}
