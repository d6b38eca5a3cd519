package scenario_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/proflab/proflab/core/scenario"
)

// Running a scenario from Go: Run gives it a fresh sandboxed Lua state, a
// time and a memory budget, and the lab (here the zero Setup: the shipped
// HALs in-process, the documented machine defaults); the Result holds its
// status, checks and records. The same seed gives the same Result.
func ExampleRun() {
	res := scenario.Run(context.Background(), scenario.Options{
		File: "interval.lua",
		Source: []byte(`
local lab = require "proflab"
local P = require "profile"
local m = lab.machine{ version = "6.1" }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
lab.check(p:NtSetIntervalProfile(lab.params.interval, lab.ProfileTime) == lab.STATUS_SUCCESS, "set")
local interval = P.query_interval(p, lab.ProfileTime)
lab.record{ interval = interval }
lab.check(interval == 1221, "clamped to the APIC HAL's minimum")
`),
		Params: map[string]any{"interval": int64(100)},
		Seed:   1,
	})
	fmt.Println(res.Status, res.Records["interval"])
	for _, c := range res.Checks {
		fmt.Println(c.Where, c.Passed, c.Message)
	}
	// Output:
	// passed 1221
	// interval.lua:6 true set
	// interval.lua:9 true clamped to the APIC HAL's minimum
}

// A failing check fails the run; an error raised by the script is the
// Result's Error, with the scenario's file:line.
func ExampleRun_error() {
	res := scenario.Run(context.Background(), scenario.Options{
		File:   "broken.lua",
		Source: []byte("local lab = require \"proflab\"\nlab.check(1 == 2, \"arithmetic\")\nlocal m = lab.machine{ version = \"11.0\" }\n"),
	})
	fmt.Println(res.Status, len(res.Failed()), "failed check")
	fmt.Println(res.Error.Where)
	fmt.Println(res.Error.Message)
	// Output:
	// error 1 failed check
	// broken.lua:3
	// broken.lua:3: lab.machine{...}: field "version": unknown Windows version "11.0": use one of 3.10, 3.50, 3.51, 4.0, 5.0, 5.1, 5.2, 6.0, 6.1, 6.2, 6.3, 10.0.10240, 10.0, 10.0.10586, 10.0.14393, 10.0.15063, 10.0.16299, 10.0.17134, 10.0.17763, 10.0.18362, 10.0.19041
}

// WriteResult writes a run's folder: result.json, the configuration in
// force, and the profiles, buckets and traces of the machines it made.
func ExampleWriteResult() {
	res := scenario.Run(context.Background(), scenario.Options{
		File: "count.lua",
		Source: []byte(`
local lab = require "proflab"
local P = require "profile"
local m = lab.machine{ cpus = 1 }
local p = m:process{ name = "app.exe", privileges = { "SeSystemProfilePrivilege" } }
P.create_and_start(p, { base = 0x10000, size = 0x1000, bucket = 8 })
m:run{ duration_us = 20000, workload = { process = p, functions = {
  { name = "main", base = 0x10000, size = 0x400, weight = 1 } } } }
`),
		Seed: 1,
	})
	dir, err := os.MkdirTemp("", "proflab-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out")
	if err := scenario.WriteResult(out, res); err != nil {
		fmt.Println(err)
		return
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// accuracy.csv
	// buckets.csv
	// config.toml
	// profile-m1-pid12-h4-ProfileTime.pb.gz
	// result.json
	// workload-m1-r1.toml
}
