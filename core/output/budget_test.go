package output_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// A profile's buffer is read from the pages that were written: a 64 MiB
// buffer of 4-byte buckets over a workload of three functions costs its
// counted pages, not its 16 M counters (issue 29 case 3: one profile of 2
// GB took 4.3 GB and 12 s to write, its untouched pages made whole
// twice). The outputs are those of the buckets that counted or ran.
func TestWriteReadsOnlyTheBuffersWrittenPages(t *testing.T) {
	for _, closeIt := range []bool{false, true} {
		l := labtest.Inproc(t, 2, 1)
		reg := &output.Registry{}
		reg.AddMachine(l.M, l.Sim)
		h := l.Profile(t, 0x10000, 64<<20, 2, nt.ProfileTime) // 16 M buckets
		l.SetInterval(t, nt.ProfileTime, 10000)
		if _, err := l.Sim.Run(50_000, labtest.ThreeFuncs(l.P)); err != nil {
			t.Fatal(err)
		}
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		if closeIt {
			// a profile closed during the run keeps its counters as it
			// closes (the registry's hook): read sparsely too
			th := l.P.MainThread()
			if st, err := th.NtStopProfile(h); st != kernel.StatusSuccess || err != nil {
				t.Fatal(st, err)
			}
			if st, err := th.NtClose(h); st != kernel.StatusSuccess || err != nil {
				t.Fatal(st, err)
			}
		}
		dir := t.TempDir()
		sum, err := output.Write(dir, reg)
		runtime.ReadMemStats(&b)
		if err != nil {
			t.Fatal(err)
		}
		if n := b.TotalAlloc - a.TotalAlloc; n > 16<<20 {
			t.Errorf("closed %v: writing the outputs allocated %d MiB; want a few (the buffer's written pages)", closeIt, n>>20)
		}
		csv, err := os.ReadFile(filepath.Join(dir, output.BucketsFile))
		if err != nil {
			t.Fatal(err)
		}
		// a row per bucket where the three functions ran (0xC00 bytes: 768
		// buckets), and the header
		if rows := strings.Count(string(csv), "\n"); rows != 768+1 {
			t.Errorf("closed %v: buckets.csv has %d lines, want 769", closeIt, rows)
		}
		if len(sum.Accuracy) != 1 || sum.Accuracy[0].Samples == 0 {
			t.Errorf("closed %v: accuracy %+v", closeIt, sum.Accuracy)
		}
	}
}

// budgetCause stands for the cause a run's budget gives its context.
type budgetCause struct{}

func (budgetCause) Error() string { return "over budget" }

// WriteContext stops when its context ends: writing the outputs is part
// of the run's budgets.
func TestWriteContextStops(t *testing.T) {
	l, reg, _ := loggedLab(t, 2, 1)
	l.Profile(t, 0x10000, 0xC00, 2, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 10000)
	if _, err := l.Sim.Run(50_000, labtest.ThreeFuncs(l.P)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(budgetCause{})
	if _, err := output.WriteContext(ctx, t.TempDir(), reg, output.All); !errors.Is(err, budgetCause{}) {
		t.Errorf("error %v; want the context's cause", err)
	}
}
