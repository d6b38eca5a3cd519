package lab_test

import (
	"context"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/kernel/nt"
)

func TestProgressReports(t *testing.T) {
	l := labtest.Inproc(t, 2, 1)
	l.Profile(t, 0x10000, 0xC00, 4, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 1221)
	var got []sim.Progress
	ctx := sim.WithProgress(context.Background(), 0, func(p sim.Progress) { got = append(got, p) })
	if _, err := l.Sim.RunContext(ctx, 500_000, labtest.ThreeFuncs(l.P)); err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 {
		t.Fatalf("%d reports for 8,000 interrupts, want one per 1024 events and a final one", len(got))
	}
	for i, p := range got {
		if p.Total != 500_000 || (i > 0 && (p.Done < got[i-1].Done || p.Events < got[i-1].Events)) {
			t.Fatalf("report %d: %+v after %+v", i, p, got[max(i-1, 0)])
		}
	}
	last := got[len(got)-1]
	if !last.Final || last.Done != 500_000 || last.Events < 8000 {
		t.Errorf("final report %+v", last)
	}
	for _, p := range got[:len(got)-1] {
		if p.Final {
			t.Errorf("a report before the end is final: %+v", p)
		}
	}
	// without WithProgress nothing is reported and the run is the same
	if _, err := l.Sim.Run(1000, labtest.ThreeFuncs(l.P)); err != nil {
		t.Fatal(err)
	}
}
