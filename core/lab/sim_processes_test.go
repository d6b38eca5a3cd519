package lab_test

import (
	"context"
	"errors"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
)

// Issue 29 case 15: making a workload's processes looks at the run's
// context, so a run stopped (its time budget, a signal) ends within 1024
// processes instead of making them all: a call of 100,000 processes ran
// on for minutes after its timeout and kept a sweep's processor busy.
func TestMakingProcessesStopsWithTheRun(t *testing.T) {
	l := labtest.Inproc(t, 2, 1)
	before := len(l.M.Processes())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := l.Sim.RunContext(ctx, 1000, manyProcesses(5000))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the run's cancellation", err)
	}
	if made := len(l.M.Processes()) - before; made > 1024 {
		t.Errorf("made %d of the 5000 processes after the run was stopped, want at most 1024", made)
	}
}

// The run finds the machine's processes by name and makes the others,
// each name once: the first of a name (by id) is the one it runs in.
func TestManyProcessesFindTheirMachineProcess(t *testing.T) {
	l := labtest.Inproc(t, 2, 1)
	w := manyProcesses(3000)
	w.Processes[2999].Name = "p0" // a name twice: one machine process
	res, err := l.Sim.Run(1000, w)
	if err != nil {
		t.Fatal(err)
	}
	byName := l.M.ProcessesByName()
	for _, name := range []string{"p0", "p1", "p2998"} {
		if byName[name] == nil {
			t.Errorf("no process %s", name)
		}
	}
	if _, ok := byName["p2999"]; ok {
		t.Error("p2999 was made, though the workload renamed it p0")
	}
	if n := len(l.M.Processes()); n != 2999+2 { // System, labtest's app, 2999 names
		t.Errorf("%d processes, want 3001", n)
	}
	if res == nil {
		t.Fatal("no result")
	}
}
