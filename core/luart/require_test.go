package luart

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRequire(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"helper.lua":   `count = (count or 0) + 1 return { twice = function(x) return 2 * x end, name = ... }`,
		"lib/deep.lua": `return "deep " .. (...)`,
		"noreturn.lua": `side = "effect"`,
		"stats.lua":    `return "local stats wins"`,
		"loop_a.lua":   `return require "loop_b"`,
		"loop_b.lua":   `return require "loop_a"`,
		"broken.lua":   `return (`,
		"raises.lua":   `error("module failed")`,
	})
	lib := fstest.MapFS{
		"stats.lua":  {Data: []byte(`return "library stats"`)},
		"assert.lua": {Data: []byte(`return { lib = true }`)},
	}
	tests := []struct{ expr, want string }{
		{`require("helper").twice(21)`, "42"},
		{`require("helper").name`, "helper"},
		{`(function() require "helper"; require "helper"; return count end)()`, "1"}, // cached
		{`require("helper") == require("helper")`, "true"},
		{`require "lib.deep"`, "deep lib.deep"},
		{`(function() local r = require "noreturn"; return tostring(r) .. side end)()`, "trueeffect"},
		{`require "stats"`, "local stats wins"},
		{`require("assert").lib`, "true"},
		{`require("proflab") == require("proflab")`, "true"},
		{`type(require("proflab").u64)`, "function"},
	}
	for _, tc := range tests {
		rt, _ := newTestRuntime(t, Config{Dir: dir, Library: lib})
		if err := rt.Exec("t.lua", []byte("__r = tostring("+tc.expr+")")); err != nil {
			t.Errorf("%s: %s", tc.expr, err.Detail())
			continue
		}
		if got := rt.L.GetGlobal("__r").String(); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}

	errs := []struct {
		stmt      string
		fragments []string
	}{
		{`require "missing"`, []string{`require "missing": module not found`, filepath.Join(dir, "missing.lua"), "scripts/missing.lua", "proflab, assert, stats"}},
		{`require "../etc/passwd"`, []string{"not a module name"}},
		{`require "a/b"`, []string{"not a module name"}},
		{`require "x.lua"`, []string{"not a module name"}},
		{`require(5)`, []string{"expected a string"}},
		{`require "loop_a"`, []string{"require loop: loop_a → loop_b → loop_a"}},
		{`require "broken"`, []string{`require "broken"`, "broken.lua"}},
		{`require "raises"`, []string{"raises.lua:1: module failed"}},
	}
	for _, tc := range errs {
		rt, _ := newTestRuntime(t, Config{Dir: dir, Library: lib})
		err := rt.Exec("t.lua", []byte(tc.stmt))
		if err == nil {
			t.Errorf("%s: no error", tc.stmt)
			continue
		}
		for _, f := range tc.fragments {
			if !strings.Contains(err.Message, f) {
				t.Errorf("%s: error %q does not contain %q", tc.stmt, err.Message, f)
			}
		}
	}
}

func TestRequireAfterAFailedModuleIsNotALoop(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"raises.lua": `error("module failed")`})
	rt, _ := newTestRuntime(t, Config{Dir: dir})
	err := rt.Exec("t.lua", []byte(`
		local ok1, e1 = pcall(require, "raises")
		local ok2, e2 = pcall(require, "raises")
		assert(not ok1 and not ok2)
		assert(not tostring(e2):find("loop"), e2)`))
	if err != nil {
		t.Fatal(err.Detail())
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

func TestResolve(t *testing.T) {
	rt, _ := newTestRuntime(t, Config{Dir: "scen"})
	if got := rt.Resolve("w.toml"); got != filepath.Join("scen", "w.toml") {
		t.Errorf("Resolve = %s", got)
	}
	abs := filepath.Join(t.TempDir(), "w.toml")
	if got := rt.Resolve(abs); got != abs {
		t.Errorf("Resolve(abs) = %s", got)
	}
}

// A library module is compiled once per process and shared by every
// state, yet each state runs it afresh: what one run does to the module's
// table is not seen by the next, on any goroutine.
func TestLibraryModulesCompiledOnceRunPerState(t *testing.T) {
	src := `
		local stats = require "stats"
		assert(rawget(stats, "touched") == nil, "a previous state's change leaked")
		stats.touched = true
		return tostring(stats.mean ~= nil)`
	const states = 8
	done := make(chan string, states)
	for range states {
		go func() {
			rt := New(Config{Dir: t.TempDir(), Log: io.Discard})
			defer rt.Close()
			if err := rt.Exec("t.lua", []byte(src)); err != nil {
				done <- err.Detail()
				return
			}
			done <- ""
		}()
	}
	for range states {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
	n := 0
	libraryProtos.Range(func(k, _ any) bool {
		if strings.HasPrefix(k.(string), LibraryChunkPrefix+"stats.lua\x00") {
			n++
		}
		return true
	})
	if n != 1 {
		t.Errorf("%d compiled copies of scripts/stats.lua, want 1", n)
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
