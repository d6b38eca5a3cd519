package luart

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// require "proflab" is the lab module, whatever the scenario's folder
// holds, and a missing module's error lists it first.
func TestRequireProflab(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "proflab.lua"), []byte(`return "a file"`), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, _ := newTestRuntime(t, Config{Dir: dir})
	if err := rt.Exec("t.lua", []byte(`local lab = require "proflab"
assert(lab == require("proflab") and type(lab.u64) == "function" and type(lab.machine) == "function")`)); err != nil {
		t.Fatal(err.Detail())
	}
	msg := evalErr(t, `require "missing"`)
	for _, want := range []string{`require "missing": module not found`, "the embedded library (scripts/missing.lua)", "the library has proflab, "} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
}

func TestRequireEmbeddedLibrary(t *testing.T) {
	rt, _ := newTestRuntime(t, Config{})
	if err := rt.Exec("t.lua", []byte(`
		local stats = require "stats"
		local A = require "assert"
		assert(type(stats.mean) == "function" and type(A.expect_status) == "function")`)); err != nil {
		t.Fatal(err.Detail())
	}
}

// The modules required from the scenario's folder are the run's inputs,
// by absolute path with the sha256 of what was read; the library's are
// not (they come with proflab).
func TestRequiredModulesAreInputs(t *testing.T) {
	dir := t.TempDir()
	src := []byte(`return 1`)
	if err := os.WriteFile(filepath.Join(dir, "helper.lua"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	rt, _ := newTestRuntime(t, Config{Dir: dir})
	if err := rt.Exec("t.lua", []byte(`require "helper" require "stats"`)); err != nil {
		t.Fatal(err.Detail())
	}
	sum := sha256.Sum256(src)
	abs, _ := filepath.Abs(filepath.Join(dir, "helper.lua"))
	if got := rt.Inputs(); len(got) != 1 || got[abs] != hex.EncodeToString(sum[:]) {
		t.Errorf("inputs %v, want only %s: %x", got, abs, sum)
	}
}

// BenchmarkRequireLibrary is a fresh state requiring the library modules
// a sampling scenario uses, as each run of a sweep does.
func BenchmarkRequireLibrary(b *testing.B) {
	for b.Loop() {
		rt := New(Config{Dir: b.TempDir(), Log: io.Discard})
		if err := rt.Exec("b.lua", []byte(`require "stats" require "profile" require "sampling" require "assert"`)); err != nil {
			b.Fatal(err.Detail())
		}
		rt.Close()
	}
}
