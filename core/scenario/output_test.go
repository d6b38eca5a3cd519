package scenario_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/scenario"
)

const runScenario = `
local lab = require "proflab"
local m = lab.machine{ cpus = 2 }
local p = m:process{ name = "app", privileges = {"SeSystemProfilePrivilege"} }
local s = m:start_kernel_logger{ profile = true }
local buf, hp = p:alloc(0x1000), p:alloc(8)
p:NtCreateProfile(hp, -1, 0x10000, 0x800, 8, buf, 0x1000, lab.ProfileTime, 3)
p:NtStartProfile(p:read_u64(hp))
p:NtSetIntervalProfile(10000, lab.ProfileTime)
local r = m:run{ duration_us = 100000, workload = { process = p, functions = { { name = "main", base = 0x10000, size = 0x800, weight = 1 } } } }
lab.check(r.interrupts.ProfileTime > 0, "interrupts")
s:stop()
`

func TestWriteResultOutputs(t *testing.T) {
	cfg := config.Default()
	for n, h := range cfg.HAL {
		h.Transport = config.TransportInproc
		cfg.HAL[n] = h
	}
	host := halhost.New(cfg.HAL, halhost.Options{})
	defer host.Close()
	file := filepath.Join(t.TempDir(), "s.lua")
	r := scenario.Run(context.Background(), scenario.Options{File: file, Source: []byte(runScenario), Seed: 1,
		HALs: &lab.HostHALs{Host: host, HALNames: cfg.HALNames()}, Setup: scenario.SetupFromConfig("", cfg, halhost.Options{})})
	if !r.Passed() {
		t.Fatalf("%+v", r.Error)
	}
	dir := t.TempDir()
	if err := scenario.WriteResult(dir, r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Machines []struct {
			InterruptsByCPU []map[string]uint64 `json:"interrupts_by_cpu"`
			InterruptCount  []struct {
				CPU   *int    `json:"cpu"`
				Count *uint32 `json:"kprcb_interrupt_count"`
			} `json:"interrupt_count"`
		} `json:"machines"`
		Files    []string       `json:"files"`
		Timings  map[string]any `json:"timings"`
		Summary  []string       `json:"summary"`
		Accuracy []struct {
			Profile string   `json:"profile"`
			Samples uint64   `json:"samples"`
			Outcome string   `json:"outcome"`
			TV      *float64 `json:"total_variation"`
			P       *float64 `json:"p_value"`
			Verdict string   `json:"verdict"`
		} `json:"accuracy"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, scenario.ResultFile))
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Machines) != 1 || got.Machines[0].InterruptsByCPU[0]["ProfileTime"] != 99 {
		t.Errorf("machines %+v", got.Machines)
	}
	// interrupt_count is labelled: each entry names its processor
	for i, c := range got.Machines[0].InterruptCount {
		if c.CPU == nil || *c.CPU != i || c.Count == nil {
			t.Errorf("interrupt_count[%d] = %+v, want {cpu, kprcb_interrupt_count}", i, c)
		}
	}
	if len(got.Machines[0].InterruptCount) != 2 {
		t.Errorf("interrupt_count has %d entries", len(got.Machines[0].InterruptCount))
	}
	// how far the profile is from the truth: accuracy.csv, a line per
	// profile in accuracy and in summary
	if len(got.Accuracy) != 1 || got.Accuracy[0].Samples != 99 || got.Accuracy[0].TV == nil || got.Accuracy[0].P == nil || got.Accuracy[0].Outcome == "" ||
		len(got.Summary) != 1 || got.Summary[0] != got.Accuracy[0].Profile+": "+got.Accuracy[0].Verdict {
		t.Errorf("accuracy %+v, summary %q", got.Accuracy, got.Summary)
	}
	for _, f := range []string{"config.toml", "workload-m1-r1.toml", "buckets.csv", output.AccuracyFile, output.TraceFile} {
		if !slices.Contains(got.Files, f) {
			t.Errorf("files %v lack %s", got.Files, f)
		}
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(strings.Join(got.Files, ","), ".pb.gz") {
		t.Errorf("no pprof profile in %v", got.Files)
	}
	c, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	if !strings.Contains(string(c), "[hal.apic]") || !strings.Contains(string(c), "freq_mhz = 3000") {
		t.Errorf("resolved config:\n%s", c)
	}
}

// config.toml does not claim a machine the scenario did not run: when
// lab.machine{...} built another one, its header says which.
func TestConfigTomlSaysWhichMachinesRan(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.lua")
	os.WriteFile(scen, []byte(`local lab = require "proflab"
local m = lab.machine{ version = "6.1", arch = "x86", cpus = 2, hal = { "apic" } }`), 0o644)
	res := scenario.Run(context.Background(), scenario.Options{File: scen, Seed: 1})
	out := filepath.Join(dir, "out")
	if err := scenario.WriteResult(out, res); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(out, scenario.ConfigFile))
	if !strings.Contains(string(b), "#   machine 1: Windows 6.1 x86, 2 processors") {
		t.Errorf("config.toml:\n%s", b)
	}
}
