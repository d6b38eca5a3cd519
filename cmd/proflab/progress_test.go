package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proflab/proflab/core/sim"
)

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := &progressLine{w: &b}
	p.report(sim.Progress{Done: 100_000, Total: 1_000_000, Events: 5000, Wall: 500 * time.Millisecond})
	if b.Len() != 0 {
		t.Fatalf("a run shorter than a second shows %q", b.String())
	}
	p.report(sim.Progress{Done: 500_000, Total: 1_000_000, Events: 2_000_000, Wall: 2 * time.Second})
	if s := b.String(); !strings.Contains(s, "simulated 0.50 s of 1.00 s (50%), 1.00 M events/s") || !strings.HasPrefix(s, "\r") {
		t.Fatalf("progress line %q", s)
	}
	b.Reset()
	p.report(sim.Progress{Done: 1_000_000, Total: 1_000_000, Events: 3_000_000, Wall: 3 * time.Second, Final: true})
	if b.String() != "\r\033[K" {
		t.Errorf("the end clears the line: %q", b.String())
	}
}

func TestProgressOnlyOnATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) || isTerminal(&bytes.Buffer{}) {
		t.Error("a file or a buffer is taken for a terminal")
	}
	// a run writing to a non-terminal stderr prints no progress
	dir := t.TempDir()
	long := writeScenario(t, dir, "long.lua", `local lab = require "proflab"
local m = lab.machine{ cpus = 2, hal = {} }
local p = m:process{ name = "app" }
m:run{ duration_us = 1000000, workload = { process = p, functions = { { name = "f", base = 0x10000, size = 0x100, weight = 1 } } } }
lab.check(true, "ran")`)
	code, _, errOut := runCLI("run", long)
	if code != ExitOK || errOut != "" {
		t.Errorf("code %d, stderr %q", code, errOut)
	}
}
