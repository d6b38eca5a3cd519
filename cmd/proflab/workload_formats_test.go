package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
)

// `proflab workload import` takes the JSON formats' files: a real
// `node --cpu-prof` profile imports, lists its format in the summary,
// and the workload runs; a file forced into the wrong JSON format is an
// error naming the file.
func TestWorkloadImportCPUProfile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "core", "workload", "importer", "testdata", "node_cpu.cpuprofile")
	out := filepath.Join(dir, "node.toml")
	code, stdout, stderr := runCLI("workload", "import", src, "-o", out, "--process", "node", "--drop-idle")
	if code != ExitOK || stdout != "" || !strings.Contains(stderr, "cpuprofile, ") || !strings.Contains(stderr, "293 samples") {
		t.Fatalf("code %d, stdout %q, stderr %q; want 0 and a cpuprofile summary of 293 samples (one idle dropped)", code, stdout, stderr)
	}
	s, err := workload.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Processes[0].Name != "node" {
		t.Errorf("process %q, want node", s.Processes[0].Name)
	}
	sc := writeScenario(t, dir, "run.lua", `local lab = require "proflab"
local m = lab.machine{ cpus = 2 }
m:kernel{}:NtSetIntervalProfile(1221, lab.ProfileTime)
local res = m:run{ duration_us = 200000, workload = "node.toml" }
lab.check(res.truth["heavy"] ~= nil and res.truth["heavy"].instructions > 0, "heavy ran")
`)
	if code, o, e := runCLI("run", sc); code != ExitOK {
		t.Errorf("running the imported workload: code %d\n%s%s", code, o, e)
	}
	// the help lists the formats
	if code, o, e := runCLI("workload", "import", "--help"); code != ExitOK || !strings.Contains(o+e, "chrome-trace") || !strings.Contains(o+e, "stackprof") {
		t.Errorf("--help: code %d, does not list the JSON formats:\n%s%s", code, o, e)
	}
	// a cpuprofile forced to be read as speedscope says what is missing
	code, _, stderr = runCLI("workload", "import", src, "--format", "speedscope")
	if code != ExitUsage || !strings.Contains(stderr, "node_cpu.cpuprofile: ") || !strings.Contains(stderr, "no profiles") {
		t.Errorf("--format speedscope: code %d, stderr %q; want 2 and the file's name", code, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}
