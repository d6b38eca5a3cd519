package output_test

import (
	"math"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// stackWorkload reaches lex through two stacks, 3:1, and runs main on
// its own.
func stackWorkload(p *kernel.Process) *workload.Spec {
	return &workload.Spec{
		Images: []workload.Image{{Name: "app.exe", Base: 0x10000, Functions: []workload.Function{
			{Name: "main", Offset: 0x000, Size: 0x400},
			{Name: "parse", Offset: 0x400, Size: 0x400},
			{Name: "lex", Offset: 0x800, Size: 0x400},
		}}},
		Processes: []workload.Process{{Name: "app", Proc: p, Stacks: []workload.Stack{
			{Frames: []string{"lex", "parse", "main"}, Weight: 3},
			{Frames: []string{"lex", "main"}, Weight: 1},
			{Frames: []string{"main"}, Weight: 4},
		}}},
	}
}

// A bucket profile's samples in a leaf reached through several stacks
// carry those stacks, split as the interrupts were: the samples add up
// to the buckets' counts, and each stack's share is its own.
func TestPprofCarriesDrawnStacks(t *testing.T) {
	p := readProfile(t, profileOf(t, nt.ProfileTime, 1221, stackWorkload, 5))
	byStack := map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		var names []string
		for _, l := range s.Location {
			names = append(names, l.Line[0].Function.Name)
		}
		byStack[strings.Join(names, ";")] += s.Value[0]
		total += s.Value[0]
	}
	a, b, m := float64(byStack["lex;parse;main"]), float64(byStack["lex;main"]), float64(byStack["main"])
	if a+b+m != float64(total) || total < 500 {
		t.Fatalf("stacks %v (total %d): want exactly lex;parse;main, lex;main and main", byStack, total)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"lex;parse;main", a / float64(total), 3.0 / 8}, {"lex;main", b / float64(total), 1.0 / 8}, {"main", m / float64(total), 0.5}} {
		if sd := math.Sqrt(c.want * (1 - c.want) / float64(total)); math.Abs(c.got-c.want) > 5*sd {
			t.Errorf("%s: %.4f of the samples, want %.3f ± %.4f", c.name, c.got, c.want, 5*sd)
		}
	}
}
