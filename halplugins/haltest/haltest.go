// Package haltest is the conformance suite for HALs. A HAL author runs it
// in-process from a Go test:
//
//	func TestConformance(t *testing.T) { haltest.Run(t, mytimer.New) }
//
// and `proflab hal check PATH` runs the same checks on a plugin executable
// across the process boundary (through [Check] on halrpc instances).
//
// The checks: Describe is sane (a name; sources in ascending order, each
// once, named as NT names them, 1 <= min <= default <= max, units given);
// Configure with empty settings works and with an unknown setting fails
// naming it; each source queried on every processor answers supported with
// its default; a set below the minimum or above the maximum comes back
// within the bounds and a query returns the effective value; start and
// stop program exactly the addressed processors; Reset restores the
// defaults; two instances are independent; a bad processor set is an error,
// not a crash. Each runs on an Intel and an AMD machine.
package haltest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/proflab/proflab/halplugins/hal"
)

// NewInstance makes a fresh, unconfigured HAL instance to check.
type NewInstance func() (hal.Instance, error)

// Result is one check's outcome on one machine.
type Result struct {
	// Check names the check ("describe is sane").
	Check string
	// Machine names the machine ("GenuineIntel x64, 4 processors").
	Machine string
	// Err is nil if the check passed, else what was wrong.
	Err error
}

// Machines are the machines every check runs on.
func Machines() []hal.Machine {
	return []hal.Machine{
		{CPUs: 4, FreqMHz: 3000, Vendor: hal.VendorIntel, Arch: "x64", Version: "10.0.19041", Seed: 1},
		{CPUs: 2, FreqMHz: 2400, Vendor: hal.VendorAMD, Arch: "x64", Version: "6.1", Seed: 2},
	}
}

func machineName(m hal.Machine) string {
	return fmt.Sprintf("%s %s, %d processors", m.Vendor, m.Arch, m.CPUs)
}

type check struct {
	name string
	run  func(newInst NewInstance, m hal.Machine) error
}

var checks = []check{
	{"describe is sane", checkDescribe},
	{"describe does not depend on the seed", checkDescribeSeed},
	{"unknown setting is rejected", checkUnknownSetting},
	{"query answers the defaults", checkQueryDefaults},
	{"set is clamped to the bounds", checkSetBounds},
	{"start and stop program the addressed processors", checkStartStop},
	{"reset restores the defaults", checkReset},
	{"instances are independent", checkIndependent},
	{"bad processor sets are errors", checkBadCPUs},
	{"number of counters is sane", checkNumberOfCounters},
}

// Check runs every check on every machine of Machines and returns the
// results in order. It never panics on a misbehaving HAL.
func Check(newInst NewInstance) []Result {
	var out []Result
	for _, m := range Machines() {
		for _, c := range checks {
			out = append(out, Result{Check: c.name, Machine: machineName(m), Err: safely(func() error { return c.run(newInst, m) })})
		}
	}
	return out
}

func safely(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return fn()
}

// TB is what Run needs of a test: *testing.T (or *testing.B) is one. The
// suite itself does not import package testing, so that a program (such
// as `proflab hal check`) runs it without linking the test framework.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// Run runs the suite in-process on HALs made by f and reports each failed
// check on t, named by its machine and check:
//
//	func TestConformance(t *testing.T) { haltest.Run(t, mytimer.New) }
func Run(t TB, f hal.Factory) {
	t.Helper()
	for _, r := range Check(func() (hal.Instance, error) { return hal.Local(f), nil }) {
		if r.Err != nil {
			t.Errorf("%s / %s: %v", r.Machine, r.Check, r.Err)
		}
	}
}

// Failed reports whether any result failed.
func Failed(rs []Result) bool {
	return slices.ContainsFunc(rs, func(r Result) bool { return r.Err != nil })
}

// Build builds the Go main package pkg (an import path or a ./relative
// directory, resolved from the current directory) into dir and returns the
// executable's path. Tests use it to build plugins into t.TempDir().
func Build(dir, pkg string) (string, error) {
	name := filepath.Base(pkg)
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = os.Environ()
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// configured makes and configures an instance with empty settings and
// describes it.
func configured(newInst NewInstance, m hal.Machine) (hal.Instance, hal.Description, error) {
	in, err := newInst()
	if err != nil {
		return nil, hal.Description{}, fmt.Errorf("making an instance: %w", err)
	}
	if err := in.Configure(m, nil); err != nil {
		in.Close()
		return nil, hal.Description{}, fmt.Errorf("configure with empty settings failed: %w", err)
	}
	d, err := in.Describe()
	if err != nil {
		in.Close()
		return nil, hal.Description{}, fmt.Errorf("describe failed: %w", err)
	}
	return in, d, nil
}

func allCPUs(m hal.Machine) []int {
	c := make([]int, m.CPUs)
	for i := range c {
		c[i] = i
	}
	return c
}

// someCPUs is a proper subset of the processors where there is one (the
// odd ones), else processor 0.
func someCPUs(m hal.Machine) []int {
	var c []int
	for i := 1; i < m.CPUs; i += 2 {
		c = append(c, i)
	}
	if len(c) == 0 {
		c = []int{0}
	}
	return c
}

func checkDescribe(newInst NewInstance, m hal.Machine) error {
	in, d, err := configured(newInst, m)
	if err != nil {
		return err
	}
	defer in.Close()
	return d.Validate()
}

// checkDescribeSeed: the host reuses a description across machines that
// differ only by seed (hal.HAL's Describe), so it must not change with it.
func checkDescribeSeed(newInst NewInstance, m hal.Machine) error {
	in, d, err := configured(newInst, m)
	if err != nil {
		return err
	}
	defer in.Close()
	other := m
	other.Seed = m.Seed*6364136223846793005 + 1442695040888963407
	in2, d2, err := configured(newInst, other)
	if err != nil {
		return fmt.Errorf("seed %d: %w", other.Seed, err)
	}
	defer in2.Close()
	a, err := in.Abilities()
	if err != nil {
		return fmt.Errorf("abilities: %w", err)
	}
	a2, err := in2.Abilities()
	if err != nil {
		return fmt.Errorf("abilities: %w", err)
	}
	if !reflect.DeepEqual(d, d2) || a != a2 {
		return fmt.Errorf("seeds %d and %d describe different HALs (%+v / %+v): a description and abilities may depend on the machine and the settings, not on the seed", m.Seed, other.Seed, d, d2)
	}
	return nil
}

func checkUnknownSetting(newInst NewInstance, m hal.Machine) error {
	in, err := newInst()
	if err != nil {
		return err
	}
	defer in.Close()
	const key = "haltest_no_such_setting"
	err = in.Configure(m, []byte(`{"`+key+`": 1}`))
	if err == nil {
		return fmt.Errorf("configure accepted the unknown setting %q", key)
	}
	if !strings.Contains(err.Error(), key) {
		return fmt.Errorf("configure rejected the unknown setting %q without naming it: %v", key, err)
	}
	return nil
}

func checkQueryDefaults(newInst NewInstance, m hal.Machine) error {
	in, d, err := configured(newInst, m)
	if err != nil {
		return err
	}
	defer in.Close()
	cpus := allCPUs(m)
	for _, s := range d.Sources {
		info, err := in.QuerySource(cpus, s.Source)
		if err != nil {
			return fmt.Errorf("query %s on %v: %w", s.Name, cpus, err)
		}
		if len(info) != len(cpus) {
			return fmt.Errorf("query %s on %d processors answered %d entries", s.Name, len(cpus), len(info))
		}
		for i, v := range info {
			if !v.Supported || v.Interval != s.Bounds.Default {
				return fmt.Errorf("query %s on processor %d: supported=%v interval=%d, want supported with the default %d",
					s.Name, cpus[i], v.Supported, v.Interval, s.Bounds.Default)
			}
		}
	}
	return nil
}

func checkSetBounds(newInst NewInstance, m hal.Machine) error {
	in, d, err := configured(newInst, m)
	if err != nil {
		return err
	}
	defer in.Close()
	cpus := allCPUs(m)
	for _, s := range d.Sources {
		probes := []uint32{0, 1, s.Bounds.Min - 1, s.Bounds.Max + 1, 0xFFFFFFFF, s.Bounds.Default}
		for _, v := range probes {
			eff, _, err := in.SetInterval(cpus, s.Source, v)
			if err != nil {
				return fmt.Errorf("set %s to %d: %w", s.Name, v, err)
			}
			if len(eff) != len(cpus) {
				return fmt.Errorf("set %s on %d processors answered %d effective intervals", s.Name, len(cpus), len(eff))
			}
			info, err := in.QuerySource(cpus, s.Source)
			if err != nil {
				return fmt.Errorf("query %s after set %d: %w", s.Name, v, err)
			}
			for i, e := range eff {
				if e < s.Bounds.Min || e > s.Bounds.Max {
					return fmt.Errorf("set %s to %d: effective %d on processor %d is outside [%d, %d]", s.Name, v, e, cpus[i], s.Bounds.Min, s.Bounds.Max)
				}
				if i < len(info) && info[i].Interval != e {
					return fmt.Errorf("set %s to %d: effective %d, but a query on processor %d answers %d", s.Name, v, e, cpus[i], info[i].Interval)
				}
			}
		}
	}
	return nil
}

// programmedCPUs returns the processors p programs, and an error if an
// entry's enabled state is not want.
func programmedCPUs(p hal.Programming, want bool) (map[int]bool, error) {
	seen := map[int]bool{}
	for _, t := range p.Timers {
		seen[t.CPU] = true
		if t.Enabled != want {
			return nil, fmt.Errorf("timer of processor %d has enabled=%v, want %v", t.CPU, t.Enabled, want)
		}
	}
	for _, c := range p.Counters {
		seen[c.CPU] = true
		if c.Enabled != want {
			return nil, fmt.Errorf("counter %d of processor %d has enabled=%v, want %v", c.Index, c.CPU, c.Enabled, want)
		}
	}
	for _, d := range p.DS {
		seen[d.CPU] = true
	}
	return seen, nil
}

func sameSet(got map[int]bool, want []int) bool {
	if len(got) != len(want) {
		return false
	}
	for _, c := range want {
		if !got[c] {
			return false
		}
	}
	return true
}

func keys(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func checkStartStop(newInst NewInstance, m hal.Machine) error {
	in, d, err := configured(newInst, m)
	if err != nil {
		return err
	}
	defer in.Close()
	cpus := someCPUs(m)
	for _, s := range d.Sources {
		for _, start := range []bool{true, false} {
			call, fn := "start", in.StartInterrupt
			if !start {
				call, fn = "stop", in.StopInterrupt
			}
			p, err := fn(cpus, s.Source)
			if err != nil {
				return fmt.Errorf("%s %s on %v: %w", call, s.Name, cpus, err)
			}
			got, err := programmedCPUs(p, start)
			if err != nil {
				return fmt.Errorf("%s %s on %v: %w", call, s.Name, cpus, err)
			}
			if !sameSet(got, cpus) {
				return fmt.Errorf("%s %s on processors %v programmed processors %v (log: %q)", call, s.Name, cpus, keys(got), p.Log)
			}
		}
	}
	return nil
}

// checkNumberOfCounters: HalQueryProfileNumberOfCounters answers without
// error, at most hal.MaxCounters, and the same after sources were started
// and the instance reset (it describes the hardware, not its use).
func checkNumberOfCounters(newInst NewInstance, m hal.Machine) error {
	in, d, err := configured(newInst, m)
	if err != nil {
		return err
	}
	defer in.Close()
	n, err := in.NumberOfCounters()
	if err != nil {
		return fmt.Errorf("number of counters: %w", err)
	}
	if n > hal.MaxCounters {
		return fmt.Errorf("number of counters is %d, more than any processor has (at most %d)", n, hal.MaxCounters)
	}
	for _, s := range d.Sources {
		if _, err := in.StartInterrupt(allCPUs(m), s.Source); err != nil {
			return fmt.Errorf("start %s: %w", s.Name, err)
		}
	}
	if _, err := in.Reset(); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	again, err := in.NumberOfCounters()
	if err != nil {
		return fmt.Errorf("number of counters after reset: %w", err)
	}
	if again != n {
		return fmt.Errorf("number of counters changed from %d to %d after starting every source and a reset", n, again)
	}
	return nil
}

func checkReset(newInst NewInstance, m hal.Machine) error {
	in, d, err := configured(newInst, m)
	if err != nil {
		return err
	}
	defer in.Close()
	cpus := allCPUs(m)
	for _, s := range d.Sources {
		if _, _, err := in.SetInterval(cpus, s.Source, s.Bounds.Max); err != nil {
			return fmt.Errorf("set %s: %w", s.Name, err)
		}
		if _, err := in.StartInterrupt(cpus[:1], s.Source); err != nil {
			return fmt.Errorf("start %s: %w", s.Name, err)
		}
	}
	p, err := in.Reset()
	if err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	if len(d.Sources) > 0 && !p.ResetAll {
		if _, err := programmedCPUs(p, false); err != nil {
			return fmt.Errorf("reset neither answered ResetAll nor disabled what it programmed: %w", err)
		}
	}
	for _, s := range d.Sources {
		info, err := in.QuerySource(cpus, s.Source)
		if err != nil {
			return fmt.Errorf("query %s after reset: %w", s.Name, err)
		}
		for i, v := range info {
			if v.Interval != s.Bounds.Default {
				return fmt.Errorf("after reset %s on processor %d has interval %d, want the default %d", s.Name, cpus[i], v.Interval, s.Bounds.Default)
			}
		}
	}
	return nil
}

func checkIndependent(newInst NewInstance, m hal.Machine) error {
	a, d, err := configured(newInst, m)
	if err != nil {
		return err
	}
	defer a.Close()
	b, _, err := configured(newInst, m)
	if err != nil {
		return err
	}
	defer b.Close()
	for _, s := range d.Sources {
		if _, _, err := a.SetInterval([]int{0}, s.Source, s.Bounds.Max); err != nil {
			return fmt.Errorf("set %s on the first instance: %w", s.Name, err)
		}
		info, err := b.QuerySource([]int{0}, s.Source)
		if err != nil {
			return fmt.Errorf("query %s on the second instance: %w", s.Name, err)
		}
		if len(info) != 1 || info[0].Interval != s.Bounds.Default {
			return fmt.Errorf("setting %s on one instance changed another's: it answers %+v, want the default %d", s.Name, info, s.Bounds.Default)
		}
	}
	return nil
}

func checkBadCPUs(newInst NewInstance, m hal.Machine) error {
	in, d, err := configured(newInst, m)
	if err != nil {
		return err
	}
	defer in.Close()
	src := hal.ProfileTime
	if len(d.Sources) > 0 {
		src = d.Sources[0].Source
	}
	for _, cpus := range [][]int{nil, {m.CPUs}, {-1}, {1, 0}} {
		if _, err := in.QuerySource(cpus, src); err == nil {
			return fmt.Errorf("query on processors %v of a %d-processor machine did not fail", cpus, m.CPUs)
		}
	}
	return nil
}
