package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// Runs of this process share one cache of workload files, by content: a
// file edited between two runs gives the second run its new content, and
// each run records the sha256 of what it read.
func TestRunsReadTheWorkloadFileAsItIsNow(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.folded")
	src := `local lab = require "proflab"
local m = lab.machine{ hal = { "apic" } }
local res = m:run{ duration_us = 10000, workload = "w.folded" }
local t = res.truth.leaf_a or res.truth["leaf_a"]
lab.record{ a = t and t.instructions or 0 }
`
	runOnce := func(content string) Result {
		t.Helper()
		if err := os.WriteFile(wl, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		r := run(t, src, func(o *Options) { o.File = filepath.Join(dir, "s.lua") })
		if r.Error != nil {
			t.Fatalf("run: %+v", r.Error)
		}
		sum := sha256.Sum256([]byte(content))
		if got := r.Inputs[wl]; got != hex.EncodeToString(sum[:]) {
			t.Errorf("inputs[%s] = %q, want the sha256 of what the run read", wl, got)
		}
		return r
	}
	first := runOnce("main;leaf_a 10\n")
	again := runOnce("main;leaf_a 10\n")
	edited := runOnce("main;leaf_b 10\n")
	if first.Records["a"] == 0.0 || again.Records["a"] != first.Records["a"] {
		t.Errorf("leaf_a's instructions: %v, then %v from the same file", first.Records["a"], again.Records["a"])
	}
	if edited.Records["a"] != 0.0 {
		t.Errorf("after the edit leaf_a still ran %v instructions: the run used the old file", edited.Records["a"])
	}
}
