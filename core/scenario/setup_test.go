package scenario

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/runerr"
)

// inprocConfig runs the shipped HALs' logic in-process, so that the plugin
// host path is tested without plugin executables.
const inprocConfig = `
[machine]
cpus = 2
seed = 9

[run]
timeout = "45s"

[hal.apic]
transport = "inproc"
[hal.pmu]
transport = "inproc"
[hal.pebs]
transport = "inproc"
`

func TestLoadSetupUsesTheConfiguration(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "lab.toml")
	if err := os.WriteFile(cfg, []byte(inprocConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	setup, err := LoadSetup(cfg, halhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if setup.Seed != 9 || setup.Timeout.String() != "45s" || setup.Machine.CPUs != 2 || setup.NewHALs == nil {
		t.Fatalf("setup = %+v", setup)
	}
	src := `local lab = require "proflab"
local m = lab.machine{}
lab.check(m:cpu_count() == 2, "cpus from [machine]")
local owners = {}
for _, s in ipairs(m:hal_sources()) do owners[s.name] = s.hal end
lab.check(owners.ProfileTime == "apic" and owners.ProfileTotalCycles == "pmu", "the configured HALs")
local p = m:process{ privileges = {"SeSystemProfilePrivilege"} }
local iv = p:alloc(4)
lab.check(p:NtSetIntervalProfile(100, lab.ProfileTime) == lab.STATUS_SUCCESS, "set")
p:NtQueryIntervalProfile(lab.ProfileTime, iv)
lab.check(p:read_u32(iv) == 1221, "the apic HAL clamps to its minimum: " .. p:read_u32(iv))
`
	var runs []Options
	for i := 0; i < 3; i++ {
		runs = append(runs, Options{File: filepath.Join(dir, "s.lua"), Source: []byte(src), Setup: setup, Seed: setup.Seed})
	}
	RunAll(context.Background(), runs, 2, func(i int, r Result) {
		if !r.Passed() {
			t.Errorf("run %d: %s\n%+v", i, Summary(r), r.Failed())
			if r.Error != nil {
				t.Error(r.Error.Detail())
			}
		}
	})
	if r := Run(context.Background(), runs[0]); !r.Passed() {
		t.Errorf("single run: %s", Summary(r))
	}
}

func TestMissingPluginIsAPluginError(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "lab.toml")
	if err := os.WriteFile(cfg, []byte("[hal.apic]\nplugin = \"proflab-hal-nonexistent\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	setup, err := LoadSetup(cfg, halhost.Options{Search: &halhost.Search{}})
	if err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), Options{File: "s.lua", Source: []byte(`local lab = require "proflab" lab.machine{ hal = {"apic"} }`), Setup: setup})
	if r.Error == nil || r.Error.Kind != runerr.KindPlugin || !strings.Contains(r.Error.Message, "proflab-hal-nonexistent") {
		t.Errorf("error = %+v", r.Error)
	}
}
