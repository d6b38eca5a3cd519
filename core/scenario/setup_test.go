package scenario

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proflab/proflab/core/config"
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

// A budget of 0 means none wherever people write it (the configuration,
// an override); Options holds "none" as a negative value because its own
// 0 is the built-in default.
func TestSetupOptionsBudgets(t *testing.T) {
	sec, mib := time.Second, int64(1<<20)
	zeroT, zeroM, seed := time.Duration(0), int64(0), uint64(7)
	tests := []struct {
		name     string
		cfgTime  time.Duration
		cfgMem   int64
		over     Overrides
		wantTime time.Duration // Options.budget(): 0 none
		wantMem  int64         // Options.Memory
		wantSeed uint64
	}{
		{"the configuration's", 5 * sec, 8 * mib, Overrides{}, 5 * sec, 8 * mib, 3},
		{"configuration 0 is none", 0, 0, Overrides{}, 0, -1, 3},
		{"overrides win", 5 * sec, 8 * mib, Overrides{Seed: &seed, Timeout: &sec, Memory: &mib}, sec, mib, 7},
		{"override 0 is none", 5 * sec, 8 * mib, Overrides{Timeout: &zeroT, Memory: &zeroM}, 0, -1, 3},
		{"override over none", 0, 0, Overrides{Timeout: &sec, Memory: &mib}, sec, mib, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Machine.Seed = 3
			cfg.Run.Timeout.Duration, cfg.Run.Memory = tc.cfgTime, config.ByteSize(tc.cfgMem)
			setup := SetupFromConfig("", cfg, halhost.Options{})
			opt := setup.Options(tc.over)
			if opt.budget() != tc.wantTime || opt.Memory != tc.wantMem || opt.Seed != tc.wantSeed {
				t.Errorf("budget %v, memory %d, seed %d; want %v, %d, %d", opt.budget(), opt.Memory, opt.Seed, tc.wantTime, tc.wantMem, tc.wantSeed)
			}
			if opt.Setup.Config != cfg {
				t.Error("the options do not carry the setup")
			}
		})
	}
}
