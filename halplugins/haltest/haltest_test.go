package haltest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/haltest"
)

// broken misdescribes itself and programs the wrong processors.
type broken struct{ hal.HAL }

func (b broken) Describe() hal.Description {
	d := b.HAL.Describe()
	d.Sources = append(d.Sources, hal.SourceSpec{Source: hal.ProfileTime, Name: "Tick", Units: "", Bounds: hal.Bounds{Min: 9, Default: 1, Max: 5}})
	return d
}

func (b broken) StartInterrupt(cpus []int, src hal.Source) (hal.Programming, error) {
	return hal.Programming{Timers: []hal.TimerProgram{{CPU: 0, Enabled: true, Period: 1}}}, nil
}

func TestCheckFindsFaults(t *testing.T) {
	rs := haltest.Check(func() (hal.Instance, error) { return hal.Local(func() hal.HAL { return broken{apic.New()} }), nil })
	if !haltest.Failed(rs) {
		t.Fatal("a broken HAL passed")
	}
	var msgs []string
	for _, r := range rs {
		if r.Err != nil {
			msgs = append(msgs, r.Check+": "+r.Err.Error())
		}
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"not in ascending order", `named "Tick"`, "has no units", "min <= default <= max", "programmed processors [0]"} {
		if !strings.Contains(all, want) {
			t.Errorf("no failure mentions %q:\n%s", want, all)
		}
	}
}

// tooMany reports more counters than any processor has, and a different
// count each time it is asked.
type tooMany struct {
	hal.HAL
	n *uint32
}

func (b tooMany) NumberOfCounters() (uint32, error) { *b.n += 40; return *b.n, nil }

func TestCheckFindsBadCounterCount(t *testing.T) {
	rs := haltest.Check(func() (hal.Instance, error) {
		return hal.Local(func() hal.HAL { return tooMany{apic.New(), new(uint32)} }), nil
	})
	var msgs []string
	for _, r := range rs {
		if r.Err != nil {
			msgs = append(msgs, r.Check+": "+r.Err.Error())
		}
	}
	if all := strings.Join(msgs, "\n"); !strings.Contains(all, "number of counters is 40, more than any processor has") {
		t.Errorf("no failure about the counter count:\n%s", all)
	}
	rs = haltest.Check(func() (hal.Instance, error) {
		return hal.Local(func() hal.HAL { n := ^uint32(0) - 37; return tooMany{apic.New(), &n} }), nil
	})
	found := false
	for _, r := range rs {
		found = found || r.Err != nil && strings.Contains(r.Err.Error(), "changed from 2 to 42")
	}
	if !found {
		t.Errorf("a count that changes passed: %+v", rs)
	}
}

func TestShippedPass(t *testing.T) {
	if rs := haltest.Check(func() (hal.Instance, error) { return hal.Local(apic.New), nil }); haltest.Failed(rs) {
		t.Fatalf("%+v", rs)
	}
}

// seeded names its version after the machine's seed.
type seeded struct {
	hal.HAL
	seed *uint64
}

func (s seeded) Configure(m hal.Machine) error { *s.seed = m.Seed; return s.HAL.Configure(m) }

func (s seeded) Describe() hal.Description {
	d := s.HAL.Describe()
	d.Version = fmt.Sprint(*s.seed)
	return d
}

func TestCheckFindsADescriptionThatDependsOnTheSeed(t *testing.T) {
	rs := haltest.Check(func() (hal.Instance, error) {
		return hal.Local(func() hal.HAL { return seeded{apic.New(), new(uint64)} }), nil
	})
	found := false
	for _, r := range rs {
		if r.Err != nil && r.Check == "describe does not depend on the seed" && strings.Contains(r.Err.Error(), "not on the seed") {
			found = true
		} else if r.Err != nil {
			t.Errorf("%s: %v", r.Check, r.Err)
		}
	}
	if !found {
		t.Error("a HAL whose description depends on the seed passed")
	}
}
