package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/workload/importer/importtest"
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

// A workload file's runs after the first take its preparation from the
// process's cache (prepared): the output folder of a run with a warm
// cache is the same, byte for byte, as the first run's, with the cache
// cold.
func TestWarmRunsWriteTheSameFolder(t *testing.T) {
	dir := t.TempDir()
	// folded stacks of 40 functions, with a frame unique to this test's
	// run so that no earlier run of the process has prepared it
	var folded strings.Builder
	fmt.Fprintf(&folded, "main;unique_%d 1\n", time.Now().UnixNano())
	for i := range 400 {
		fmt.Fprintf(&folded, "main;mid_%d;inner_%d;leaf_%d %d\n", i%7, i%50, (i*13)%40, 1+(i*31)%97)
	}
	if err := os.WriteFile(filepath.Join(dir, "w.folded"), []byte(folded.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `local lab, P = require "proflab", require "profile"
local m = lab.machine{ cpus = 2, hal = { "apic", "pmu" } }
local img = m:images{ workload = "w.folded" }.images[1]
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local pr = P.create_and_start(p, { process = false, base = img.base, size = img.size, bucket = 4 })
p:NtSetIntervalProfile(1221, lab.ProfileTime)
local res = m:run{ duration_us = 200000, workload = "w.folded" }
local again = m:run{ duration_us = 100000, workload = "w.folded" }
lab.record{ hits = P.buckets(pr)[1] or 0, stacks = #res.stacks }
lab.check(#res.stacks > 100 and #again.stacks == #res.stacks, "the stacks ran")
`
	write := func(name string) []string {
		t.Helper()
		r := run(t, src, func(o *Options) { o.File = filepath.Join(dir, "s.lua") })
		if r.Error != nil || !r.Passed() {
			t.Fatalf("run: %+v %+v", r.Error, r.Checks)
		}
		r.Timings = Timings{} // the only wall-clock field
		out := filepath.Join(t.TempDir(), name)
		if err := WriteResult(out, r); err != nil {
			t.Fatal(err)
		}
		files, err := filepath.Glob(filepath.Join(out, "*"))
		if err != nil || len(files) < 3 {
			t.Fatalf("the run wrote %v (%v)", files, err)
		}
		return files
	}
	cold, warm := write("cold"), write("warm")
	if len(cold) != len(warm) {
		t.Fatalf("the cold run wrote %d files, the warm one %d", len(cold), len(warm))
	}
	for i := range cold {
		a, errA := os.ReadFile(cold[i])
		b, errB := os.ReadFile(warm[i])
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between a cold and a warm run (%v, %v)", filepath.Base(cold[i]), errA, errB)
		}
	}
}

// result.json's inputs are every file the run read besides its scenario
// (a module required from the scenario's folder, a workload file), by
// absolute path, with the sha256 of what was read, sorted by path, as
// docs/scenario-api.md promises; a run that read no file has none.
func TestResultJSONHasTheInputs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"w.folded":   "main;leaf_a 10\n",
		"helper.lua": "return { duration = 10000 }\n",
	}
	want := map[string]string{}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(content))
		want[p] = hex.EncodeToString(sum[:])
	}
	read := func(src string) (map[string]any, []byte) {
		t.Helper()
		r := run(t, src, func(o *Options) { o.File = filepath.Join(dir, "s.lua") })
		if r.Error != nil {
			t.Fatalf("run: %+v", r.Error)
		}
		out := filepath.Join(t.TempDir(), "out")
		if err := WriteResult(out, r); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, ResultFile))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		return got, b
	}
	got, b := read(`local lab = require "proflab"
local helper = require "helper"
local m = lab.machine{ hal = { "apic" } }
m:run{ duration_us = helper.duration, workload = "w.folded" }
`)
	inputs, ok := got["inputs"].(map[string]any)
	if !ok || len(inputs) != len(want) {
		t.Fatalf("result.json's inputs = %v, want %v:\n%s", got["inputs"], want, b)
	}
	for p, sum := range want {
		if inputs[p] != sum {
			t.Errorf("inputs[%s] = %v, want %s", p, inputs[p], sum)
		}
	}
	// sorted by path: helper.lua before w.folded, whatever the reading order
	if h, w := bytes.Index(b, []byte(`helper.lua"`)), bytes.Index(b, []byte(`w.folded"`)); h < 0 || w < h {
		t.Errorf("inputs are not sorted by path:\n%s", b)
	}
	if got, b := read(`local lab = require "proflab" lab.record{ x = 1 }`); got["inputs"] != nil {
		t.Errorf("a run that read no file has inputs:\n%s", b)
	}
}

// A profile imported through m:run holds the run's memory budget as
// `proflab workload import --memory` does: the 16,000-node chain of
// issue 36 (2.6 MB, 3.7 GB of stacks before they were cut and counted)
// stops at the budget with the import's error, a memory budget failure
// of the run even when the script catches it.
func TestImportThroughRunHoldsTheMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "deep.cpuprofile"), importtest.V8DeepChain(16000), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"m:run": `local lab = require "proflab"
local m = lab.machine{ hal = { "apic" } }
m:run{ duration_us = 1000, workload = "deep.cpuprofile" }`,
		"m:images in pcall": `local lab = require "proflab"
local m = lab.machine{ hal = { "apic" } }
local ok, err = pcall(function() return m:images{ workload = "deep.cpuprofile" } end)
lab.check(not ok, "refused")`,
	} {
		r := run(t, src, func(o *Options) { o.File, o.Memory = filepath.Join(dir, "s.lua"), 64<<20 })
		if r.Error == nil || r.Error.Kind != runerr.KindMemory ||
			!strings.Contains(r.Error.Message, "deep.cpuprofile: the import stopped: its stacks would hold more than the import's memory budget of 64 MiB") ||
			!strings.Contains(r.Error.Message, "s.lua:") {
			t.Errorf("%s: error %+v, want the import's memory budget failure at the scenario's line", name, r.Error)
		}
	}
}
