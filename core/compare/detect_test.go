package compare

import (
	"math/rand/v2"
	"testing"

	"github.com/proflab/proflab/core/sampling"
)

// The smallest detectable move is what the exact row tests find about
// DetectPower of the time: a function of 1% in the source, Shift more in
// the lab, simulated, tested at the Holm family's first step.
func TestDetectableMatchesSimulation(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	bin := func(n uint64, p float64) uint64 {
		var k uint64
		for range n {
			if r.Float64() < p {
				k++
			}
		}
		return k
	}
	for _, c := range []struct {
		kind   string
		ns, nl uint64
		tests  int
	}{
		{TwoSample, 1993, 3890, 40},
		{TwoSample, 600, 2000, 60},
		{TwoSample, 10_000, 10_000, 300},
		{Fit, 1993, 3890, 40},
		{Fit, 608, 600, 60},
		{Fit, 20_000, 20_000, 300},
	} {
		d := detectable(c.kind, c.ns, c.nl, c.tests)
		if d.Shift <= 0 || d.Shift > 0.2 {
			t.Errorf("%s %d/%d: shift %v", c.kind, c.ns, c.nl, d.Shift)
			continue
		}
		level := AlphaRows / float64(c.tests)
		const sims = 400
		found := 0
		for range sims {
			lab := bin(c.nl, d.Base+d.Shift)
			var p float64
			if c.kind == Fit {
				p = sampling.BinomialTest(lab, c.nl, d.Base)
			} else {
				p = sampling.ConditionalTest(bin(c.ns, d.Base), c.ns, lab, c.nl)
			}
			if p < level {
				found++
			}
		}
		power := float64(found) / sims
		t.Logf("%s: %s (simulated: %.2f)", c.kind, d, power)
		if power < 0.72 || power > 0.9 {
			t.Errorf("%s %d/%d: a move of %.4f found %.2f of the time, want about %.2f", c.kind, c.ns, c.nl, d.Shift, power, d.Power)
		}
	}
	if d := detectable(TwoSample, 5, 5, 3); d.Shift != 0 || d.String() != "with 5 source samples and 5 lab samples, no move into a function of 1% is found 80% of the time: too few samples" {
		t.Errorf("5 samples a side: %v %q", d.Shift, d)
	}
}
