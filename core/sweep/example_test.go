package sweep_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/proflab/proflab/core/sweep"
)

// A sweep plan: Parse reads the sweep file, Expand crosses its grid with
// its zipped lists and repeats into runs, each with an id hashed from its
// parameters and a seed derived from the master seed and that id (never
// from the clock), so that the same sweep plans the same runs anywhere.
// Runs are computed from their index (Plan.Run) rather than listed.
func ExampleExpand() {
	dir, err := os.MkdirTemp("", "proflab-sweep-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	scenario := []byte("local lab = require \"proflab\"\nlab.record{ x = lab.params.interval }\n")
	if err := os.WriteFile(filepath.Join(dir, "probe.lua"), scenario, 0o644); err != nil {
		fmt.Println(err)
		return
	}
	f, err := sweep.Parse(filepath.Join(dir, "sweep.toml"), []byte(`
scenario = "probe.lua"
seed = 7
repeats = 2
[grid]
interval = { from = 1221, to = 39063, steps = 2, scale = "log" }
[set]
duration_us = 1000
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := sweep.Expand(f, map[string]any{"duration_us": 5000})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range plan.Len() {
		r := plan.Run(i)
		fmt.Println(r.Index, r.ID, r.Params["interval"], r.Params["duration_us"], r.Repeat, r.Seed)
	}
	// Output:
	// 0 3c21307e4f9162d7 1221 5000 0 6903060960319952
	// 1 7fd5d1ca342ba1c7 1221 5000 1 4455354846007882
	// 2 a0aa58f037d423d8 39063 5000 0 3312178332335124
	// 3 ea424d81b453abe9 39063 5000 1 3801169971579277
}

// A shard is a deterministic slice of the runs: run i belongs to shard i
// mod N, so a Slurm array task or a Kubernetes Indexed Job runs its part
// with the same ids and seeds as a laptop running the whole sweep.
func ExampleParseShard() {
	env := map[string]string{"SLURM_ARRAY_TASK_ID": "1"}
	s, from, err := sweep.ParseShard("auto/3", func(k string) string { return env[k] })
	fmt.Println(s, from, err)
	// Output:
	// 1/3 SLURM_ARRAY_TASK_ID <nil>
}
