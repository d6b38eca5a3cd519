package output_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/proflab/proflab/core/luart"
	"github.com/proflab/proflab/core/output"
)

// Writing a run's outputs from Go: the Lua runtime adds every machine it
// makes to a Registry, and Write turns them into files (buckets.csv,
// accuracy.csv, a pprof profile per profile) and a Summary with each
// profile's verdict against the ground truth; ReadAccuracy reads
// accuracy.csv back. (core/scenario's WriteResult does this, and writes
// result.json beside them.)
func ExampleWrite() {
	reg := &output.Registry{}
	rt := luart.New(luart.Config{Outputs: reg, Seed: 3})
	defer rt.Close()
	err := rt.Exec("hot.lua", []byte(`
local lab, P = require "proflab", require "profile"
local m = lab.machine{ cpus = 2 }
local p = m:process{ name = "app.exe", privileges = { "SeSystemProfilePrivilege" } }
P.create_and_start(p, { base = 0x10000, size = 0x1000, bucket = 8 })
p:NtSetIntervalProfile(1221, lab.ProfileTime)
m:run{ duration_us = 500000, workload = { process = p, functions = {
  { name = "hot", base = 0x10000, size = 0x400, weight = 3 },
  { name = "cold", base = 0x10800, size = 0x400, weight = 1 } } } }
`))
	if err != nil {
		fmt.Println(err.Detail())
		return
	}
	dir, tmpErr := os.MkdirTemp("", "proflab-output-example")
	if tmpErr != nil {
		fmt.Println(tmpErr)
		return
	}
	defer os.RemoveAll(dir)
	sum, werr := output.Write(dir, reg)
	if werr != nil {
		fmt.Println(werr)
		return
	}
	fmt.Println(sum.Files)
	fmt.Println(sum.Accuracy[0].Verdict)
	f, ferr := os.Open(filepath.Join(dir, output.AccuracyFile))
	if ferr != nil {
		fmt.Println(ferr)
		return
	}
	defer f.Close()
	profs, rerr := output.ReadAccuracy(output.AccuracyFile, f)
	if rerr != nil {
		fmt.Println(rerr)
		return
	}
	for _, pa := range profs {
		fmt.Println(pa.Source, pa.Samples, pa.Outcome)
		for _, f := range pa.Rows {
			fmt.Printf("  %-6s sampled %.3f [%.3f, %.3f] truth %.3f\n", f.Name, f.Sampled, f.Low, f.High, f.Truth)
		}
	}
	// Output:
	// [buckets.csv accuracy.csv profile-m1-pid12-h4-ProfileTime.pb.gz]
	// within sampling error: 4095 samples, total variation 0.0070 (sampling error alone gives 0.0054 on average), p = 0.30
	// ProfileTime 4095 within sampling error
	//   hot    sampled 0.742 [0.728, 0.755] truth 0.749
	//   cold   sampled 0.258 [0.245, 0.272] truth 0.251
}
