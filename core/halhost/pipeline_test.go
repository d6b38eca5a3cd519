package halhost_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/halplugins/halrpc"
	"github.com/proflab/proflab/kernel/nt"
)

// kernelCalls are the calls a run's setup makes: the timer and a counter
// each queried, started and set, on one machine's apic and pmu.
func kernelCalls(t *testing.T, hals []*halhost.MachineHAL) {
	t.Helper()
	apic, pmu := hals[0], hals[1]
	cpus := []int{0, 1, 2, 3}
	if _, err := apic.QuerySource(cpus[:1], nt.ProfileTime); err != nil {
		t.Fatal(err)
	}
	if err := apic.StartInterrupt(cpus, nt.ProfileTime); err != nil {
		t.Fatal(err)
	}
	if _, err := apic.SetInterval(cpus, nt.ProfileTime, 1221); err != nil {
		t.Fatal(err)
	}
	if _, err := pmu.QuerySource(cpus[:1], nt.ProfileTotalIssues); err != nil {
		t.Fatal(err)
	}
	if err := pmu.StartInterrupt(cpus, nt.ProfileTotalIssues); err != nil {
		t.Fatal(err)
	}
	if err := apic.StopInterrupt(cpus[2:], nt.ProfileTime); err != nil {
		t.Fatal(err)
	}
}

// The calls a plugin HAL sends without waiting (start, stop) reach the
// hardware in the order the kernel made them, exactly as in-process
// calls do, once the machine's calls settle; and the settle is what makes
// them reach it.
func TestDeferredCallsApplyInCallOrder(t *testing.T) {
	t.Parallel()
	open := func(h *halhost.Host) ([]*halhost.MachineHAL, *halhost.Recorder) {
		rec := &halhost.Recorder{}
		hals, err := h.OpenMachine([]string{"apic", "pmu"}, machine, rec)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { halhost.CloseMachine(hals) })
		return hals, rec
	}
	inproc := newHost(t, "[hal.apic]\ntransport = \"inproc\"\n[hal.pmu]\ntransport = \"inproc\"\n")
	ihals, irec := open(inproc)
	kernelCalls(t, ihals)
	want := irec.Applied()
	if len(want) != 4 {
		t.Fatalf("in-process: %d programmings applied, want 4 (start, set, start, stop)", len(want))
	}

	plugins := newHost(t, "")
	phals, prec := open(plugins)
	kernelCalls(t, phals)
	if got := len(prec.Applied()); got >= len(want) {
		t.Fatalf("%d of %d programmings applied before the settle: the last start and stop were waited for", got, len(want))
	}
	for _, mh := range phals {
		if err := mh.Settle(); err != nil {
			t.Fatal(err)
		}
	}
	if got := prec.Applied(); !reflect.DeepEqual(got, want) {
		t.Errorf("through plugins, settled:\n%+v\nin-process:\n%+v", got, want)
	}
}

// A start that crashes the plugin returns nothing to the kernel, so the
// failure surfaces when the machine's calls settle (before the run), and
// names the HAL and the exit (not the call that found it: with calls in
// flight, which one that is depends on timing; the log has it); the HAL
// then refuses every call.
func TestDeferredStartFailureSurfacesAtSettle(t *testing.T) {
	t.Parallel()
	h := newHost(t, "[hal.crash]\nplugin = \"hal-crash\"\n")
	hals, err := h.OpenMachine([]string{"crash"}, machine, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer halhost.CloseMachine(hals)
	mh := hals[0]
	if err := mh.StartInterrupt([]int{0, 1}, nt.ProfileTime); err != nil {
		t.Fatalf("the start was waited for: %v", err)
	}
	err = mh.Settle()
	if !errors.Is(err, halrpc.ErrExited) || !strings.Contains(err.Error(), `hal "crash"`) || !strings.Contains(err.Error(), "died during the run") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("settle: %v", err)
	}
	if _, err := mh.QuerySource([]int{0}, nt.ProfileTime); err == nil || !strings.Contains(err.Error(), "died during the run") {
		t.Fatalf("a call after the failed start: %v", err)
	}
}

// A machine whose HALs the host has seen described, for another seed,
// opens without a round trip; a HAL the run never calls costs none at
// all; the first call of one it does call carries its configure.
func TestKnownDescriptionOpensWithoutRoundTrips(t *testing.T) {
	t.Parallel()
	h := newHost(t, "")
	names := []string{"apic", "pmu", "pebs"}
	first, err := h.OpenMachine(names, machine, nil)
	if err != nil {
		t.Fatal(err)
	}
	halhost.CloseMachine(first)
	before := h.RoundTrips()

	m := machine
	m.Seed = 2
	unused, err := h.OpenMachine(names, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, mh := range unused {
		if !reflect.DeepEqual(mh.Sources(), first[i].Sources()) {
			t.Errorf("%s: the known description differs from the first", names[i])
		}
		if err := mh.Settle(); err != nil {
			t.Fatal(err)
		}
	}
	halhost.CloseMachine(unused)
	if n := h.RoundTrips() - before; n != 0 {
		t.Errorf("a machine opened, settled and closed without a call: %d round trips, want 0", n)
	}

	m.Seed = 3
	used, err := h.OpenMachine(names, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := used[0].QuerySource([]int{0}, nt.ProfileTime); err != nil {
		t.Fatal(err)
	}
	halhost.CloseMachine(used)
	if n := h.RoundTrips() - before; n != 3 {
		t.Errorf("one query on one HAL, then closing: %d round trips, want 3 (configure, query, close)", n)
	}
	// The plugin held one instance per configured machine at most: the
	// closes were delivered (a later call on the same stream reads them).
	again, err := h.OpenMachine(names[:1], m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer halhost.CloseMachine(again)
	if _, err := again[0].QuerySource([]int{0}, nt.ProfileTime); err != nil {
		t.Fatal(err)
	}
}

// A HAL whose description depends on the seed breaks the contract the
// reuse rests on: the run that meets it fails, saying so.
func TestDescriptionThatDependsOnTheSeedFails(t *testing.T) {
	t.Parallel()
	h := newHost(t, "[hal.seeded]\nplugin = \"hal-seeded\"\n")
	first, err := h.OpenMachine([]string{"seeded"}, machine, nil)
	if err != nil {
		t.Fatal(err)
	}
	halhost.CloseMachine(first)
	m := machine
	m.Seed = 99
	hals, err := h.OpenMachine([]string{"seeded"}, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer halhost.CloseMachine(hals)
	_, err = hals[0].QuerySource([]int{0}, nt.ProfileTime)
	if err == nil || !strings.Contains(err.Error(), "described itself differently") || !strings.Contains(err.Error(), "not on the seed") {
		t.Fatalf("a description that changed with the seed: %v", err)
	}
	if err := hals[0].Settle(); err == nil {
		t.Error("settle after the failure: nil")
	}
}

// A plugin built before the Session stream (unary RPCs only) is served
// as before: every call waited for, in the same order, with the same
// programming.
func TestUnaryOnlyPlugin(t *testing.T) {
	t.Parallel()
	h := newHost(t, "[hal.apic]\nplugin = \"hal-unary\"\n")
	rec := &halhost.Recorder{}
	hals, err := h.OpenMachine([]string{"apic", "pmu"}, machine, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer halhost.CloseMachine(hals)
	kernelCalls(t, hals)
	applied := len(rec.Applied())
	for _, mh := range hals {
		if err := mh.Settle(); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(rec.Applied()); got != 4 {
		t.Errorf("%d programmings applied, want 4", got)
	}
	if applied < 3 {
		t.Errorf("%d programmings applied before the settle, want the unary apic's 3 at least", applied)
	}
	if d := hals[0].Description(); d.Name != "apic" || len(d.Sources) == 0 {
		t.Errorf("unary apic described %+v", d)
	}
}

// While the processors run, programming takes effect at once: a start is
// waited for and applied before StartInterrupt returns.
func TestNothingIsDeferredDuringARun(t *testing.T) {
	t.Parallel()
	h := newHost(t, "")
	rec := &halhost.Recorder{InRun: true}
	hals, err := h.OpenMachine([]string{"apic"}, machine, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer halhost.CloseMachine(hals)
	if err := hals[0].StartInterrupt([]int{0, 1}, nt.ProfileTime); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Applied()); n != 1 {
		t.Errorf("during a run, %d programmings applied when the start returned, want 1", n)
	}
}

// Closing an instance twice (a run's teardown, then its lab's) sends one
// release.
func TestCloseTwiceSendsOnce(t *testing.T) {
	t.Parallel()
	h := newHost(t, "")
	hals, err := h.OpenMachine([]string{"apic"}, machine, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := h.RoundTrips()
	halhost.CloseMachine(hals)
	halhost.CloseMachine(hals)
	if n := h.RoundTrips() - before; n != 1 {
		t.Errorf("two closes: %d messages, want 1", n)
	}
}
