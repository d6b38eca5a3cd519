package sweep_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/sweep"
	"github.com/proflab/proflab/core/sweep/results"
)

// replaceAfterFirst is a Progress that replaces a file once the first
// run has finished.
type replaceAfterFirst struct {
	once     sync.Once
	from, to string
	err      error
}

func (r *replaceAfterFirst) Start(int, int) {}
func (r *replaceAfterFirst) Finish()        {}
func (r *replaceAfterFirst) Add(results.Line) {
	r.once.Do(func() { r.err = os.Rename(r.from, r.to) })
}

// A workload file replaced in the middle of a sweep is noticed although
// the process answers an unchanged file by its identity, without reading
// it: the runs after the change record its new sha256, and the sweep says
// the file is mixed (ErrMixed; --allow-mixed accepts it).
func TestWorkloadReplacedMidSweepIsMixed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	workload := func(weight string) []byte {
		return []byte("create_processes = true\n[[process]]\nname = \"app\"\n[[process.function]]\nname = \"f\"\nbase = \"0x401000\"\nsize = 4096\nweight = " + weight + "\n")
	}
	scen := "local lab = require \"proflab\"\nlocal m = lab.machine{ cpus = 1 }\nlab.record{ instructions = m:run{ duration_us = 100, workload = \"w.toml\" }.truth.f.instructions }\n"
	path := filepath.Join(dir, "s.toml")
	for name, text := range map[string][]byte{
		"s.lua":  []byte(scen),
		"s.toml": []byte("scenario = \"s.lua\"\nconfig_file = " + quote(inprocConfig(t)) + "\nrepeats = 6\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := plan(t, path)
	for _, allow := range []bool{false, true} {
		w, next := filepath.Join(dir, "w.toml"), filepath.Join(dir, "w.next")
		for name, text := range map[string][]byte{w: workload("1"), next: workload("2")} {
			if err := os.WriteFile(name, text, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// settled, so that the first runs are answered by its identity
		time.Sleep(input.RecentChange + 100*time.Millisecond)
		rep := &replaceAfterFirst{from: next, to: w}
		out := filepath.Join(dir, "out")
		if allow {
			out += "-allowed"
		}
		sum, err := execute(p, out, sweep.Options{Jobs: 1, Progress: rep, AllowMixed: allow})
		if rep.err != nil {
			t.Fatal(rep.err)
		}
		if sum.OK != 6 || !slices.Equal(sum.Mixed, []string{"w.toml"}) {
			t.Errorf("allow-mixed %v: %+v, want 6 runs ok and w.toml mixed", allow, sum)
		}
		if allow != (err == nil) || !allow && !errors.Is(err, sweep.ErrMixed) {
			t.Errorf("allow-mixed %v: error %v", allow, err)
		}
	}
}
