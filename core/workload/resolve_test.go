package workload_test

import (
	"reflect"
	"sync"
	"testing"

	"github.com/proflab/proflab/core/workload"
)

// deepCopy copies a workload down to the slices Resolve fills defaults in.
func deepCopy(s workload.Spec) workload.Spec {
	c := s
	c.Images = append([]workload.Image(nil), s.Images...)
	c.Processes = nil
	for _, p := range s.Processes {
		p.Threads = append([]workload.Thread(nil), p.Threads...)
		p.Functions = append([]workload.Function(nil), p.Functions...)
		c.Processes = append(c.Processes, p)
	}
	return c
}

// Resolution is a value-in, value-out step: the workload it resolves is
// left exactly as it was (defaults are filled in the result's copy), so
// one workload resolves the same for any number of machines.
func TestResolveLeavesItsInputUnchanged(t *testing.T) {
	spec := workload.Spec{
		Images: []workload.Image{{Name: "app.exe", Base: 0x400000, Functions: []workload.Function{{Name: "f", Offset: 0x100, Size: 0x100, Weight: 1}}}},
		Processes: []workload.Process{
			{Name: "a"}, // no threads: Resolve gives it one
			{Name: "b", Threads: []workload.Thread{{}, {Busy: 0.5}}}, // busy 0 becomes 1
		},
	}
	before := deepCopy(spec)
	for range 2 {
		r, err := spec.Resolve(x64)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Spec.Processes[0].Threads) != 1 || r.Spec.Processes[1].Threads[0].Busy != 1 || len(r.Spec.Images) != 2 {
			t.Errorf("the result's copy lacks its defaults: %+v", r.Spec)
		}
	}
	if !reflect.DeepEqual(spec, before) {
		t.Errorf("Resolve changed its input:\n got %+v\nwant %+v", spec, before)
	}
}

// One workload resolves on many goroutines at once (a sweep's workers
// share the workloads importer.Cache keeps): go test -race checks that
// resolution only reads it.
func TestResolveConcurrently(t *testing.T) {
	spec := &workload.Spec{
		Images: []workload.Image{{Name: "app.exe", Base: 0x400000, Functions: []workload.Function{
			{Name: "main", Offset: 0, Size: 0x100}, {Name: "f", Offset: 0x100, Size: 0x100, Hotspots: []workload.Hotspot{{Offset: 4, Size: 1, Weight: 0.5}}}}}},
		Processes:       []workload.Process{{Name: "a", Stacks: []workload.Stack{{Frames: []string{"f", "main"}, Weight: 2}, {Frames: []string{"main"}, Weight: 1}}}},
		CreateProcesses: true,
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				if _, err := spec.Resolve(x64); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
