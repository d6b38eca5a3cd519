package scenario_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/compare"
	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/scenario"
)

// A run that imported a profile as its workload compares its profiles
// with the source in its folder (comparison.txt, comparison.csv); a run
// of a hand-written workload has no such files.
func TestWriteResultComparesWithTheSource(t *testing.T) {
	cfg := config.Default()
	for n, h := range cfg.HAL {
		h.Transport = config.TransportInproc
		cfg.HAL[n] = h
	}
	host := halhost.New(cfg.HAL, halhost.Options{})
	defer host.Close()
	src := t.TempDir()
	folded := "app;main;compute 300\napp;main;compute;hash 200\napp;main;parse 250\napp;main;write 250\n"
	if err := os.WriteFile(filepath.Join(src, "app.folded"), []byte(folded), 0o644); err != nil {
		t.Fatal(err)
	}
	scen := `local lab, P = require "proflab", require "profile"
local m = lab.machine{ cpus = 1 }
local img = m:images{ workload = "app.folded" }.images[1]
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
P.create_and_start(p, { process = false, base = img.base, size = img.size, bucket = 2 })
p:NtSetIntervalProfile(1221, lab.ProfileTime)
m:run{ duration_us = 500000, workload = "app.folded" }
`
	for _, c := range []struct {
		name, source string
		want         bool
	}{{"imported", scen, true}, {"hand-written", runScenario, false}} {
		r := scenario.Run(context.Background(), scenario.Options{File: filepath.Join(src, "s.lua"), Source: []byte(c.source), Seed: 1,
			HALs: &lab.HostHALs{Host: host, HALNames: cfg.HALNames()}, Setup: scenario.SetupFromConfig("", cfg, halhost.Options{})})
		if !r.Passed() {
			t.Fatalf("%s: %+v", c.name, r.Error)
		}
		dir := t.TempDir()
		if err := scenario.WriteResult(dir, r); err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(filepath.Join(dir, compare.TextFile))
		if !c.want {
			if err == nil {
				t.Errorf("%s: %s written:\n%s", c.name, compare.TextFile, text)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(string(text), "app.folded (folded, count) against profile-m1-") ||
			!strings.Contains(string(text), "test: goodness of fit: the run replayed this source") ||
			!strings.Contains(string(text), "verdict: the lab agrees with the source within the lab's sampling error") {
			t.Errorf("%s:\n%s", c.name, text)
		}
		if !filesListed(t, dir, compare.TextFile, compare.CSVFile) {
			t.Errorf("%s: result.json's files lack the comparison", c.name)
		}
	}
}

// filesListed reports whether result.json in dir lists every name.
func filesListed(t *testing.T, dir string, names ...string) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, scenario.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !strings.Contains(string(b), `"`+n+`"`) {
			return false
		}
	}
	return true
}
