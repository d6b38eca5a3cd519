package output_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/output"
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

// The kernel logger's sampled events of a leaf reached through several
// stacks carry those stacks too (samples-*.pb.gz), and add up to the
// events.
func TestLoggerSamplesCarryDrawnStacks(t *testing.T) {
	l, reg, _ := loggedLab(t, 1, 5)
	l.SetInterval(t, nt.ProfileTime, 1221)
	res, err := l.Sim.Run(200_000, stackWorkload(l.P))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := output.Write(dir, reg); err != nil {
		t.Fatal(err)
	}
	p := readProfile(t, filepath.Join(dir, "samples-m1-ProfileTime.pb.gz"))
	byStack := map[string]int64{}
	var total int64
	for _, smp := range p.Sample {
		var names []string
		for _, loc := range smp.Location {
			names = append(names, loc.Line[0].Function.Name)
		}
		byStack[strings.Join(names, ";")] += smp.Value[0]
		total += smp.Value[0]
	}
	if total != int64(res.Interrupts["ProfileTime"]) {
		t.Errorf("%d samples, %d interrupts", total, res.Interrupts["ProfileTime"])
	}
	for _, st := range []string{"lex;parse;main", "lex;main", "main"} {
		if byStack[st] == 0 {
			t.Errorf("no sample with the stack %s: %v", st, byStack)
		}
	}
	if a, b := float64(byStack["lex;parse;main"]), float64(byStack["lex;main"]); a < 2*b || a > 4.5*b {
		t.Errorf("lex's stacks %v:%v, want about 3:1", a, b)
	}
}
