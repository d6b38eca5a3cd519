package luavm

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	lua "github.com/yuin/gopher-lua"
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
		{`require("host") == require("host")`, "true"},
		{`require("host").answer`, "42"},
	}
	for _, tc := range tests {
		vm, _ := newTestState(t, Config{Dir: dir, Library: lib})
		host := vm.L.NewTable()
		host.RawSetString("answer", lua.LNumber(42))
		vm.Preload("host", host)
		if err := vm.Exec("t.lua", []byte("__r = tostring("+tc.expr+")")); err != nil {
			t.Errorf("%s: %s", tc.expr, err.Detail())
			continue
		}
		if got := vm.L.GetGlobal("__r").String(); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}

	errs := []struct {
		stmt      string
		fragments []string
	}{
		{`require "missing"`, []string{`require "missing": module not found`, filepath.Join(dir, "missing.lua"), "scripts/missing.lua", "host, assert, stats"}},
		{`require "../etc/passwd"`, []string{"not a module name"}},
		{`require "a/b"`, []string{"not a module name"}},
		{`require "x.lua"`, []string{"not a module name"}},
		{`require(5)`, []string{"expected a string"}},
		{`require "loop_a"`, []string{"require loop: loop_a → loop_b → loop_a"}},
		{`require "broken"`, []string{`require "broken"`, "broken.lua"}},
		{`require "raises"`, []string{"raises.lua:1: module failed"}},
	}
	for _, tc := range errs {
		vm, _ := newTestState(t, Config{Dir: dir, Library: lib})
		vm.Preload("host", lua.LTrue)
		err := vm.Exec("t.lua", []byte(tc.stmt))
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
	vm, _ := newTestState(t, Config{Dir: dir})
	err := vm.Exec("t.lua", []byte(`
		local ok1, e1 = pcall(require, "raises")
		local ok2, e2 = pcall(require, "raises")
		assert(not ok1 and not ok2)
		assert(not tostring(e2):find("loop"), e2)`))
	if err != nil {
		t.Fatal(err.Detail())
	}
}

// A library module's table is strict: a name it does not have is an error
// naming the closest, and what the scenario sets still works. A module
// from the scenario's folder is a plain table.
func TestLibraryModulesAreStrict(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"own.lua": `return { total = 1 }`})
	lib := fstest.MapFS{"profile.lua": {Data: []byte(`return { total = function() end, top = 1 }`)}}
	for _, tc := range []struct{ src, want string }{
		{"local P = require 'profile'\nlocal x = P.totl", `t.lua:2: the library module "profile" has no totl; did you mean total?`},
		{"local P = require 'profile'\nlocal x = P[1]", `the library module "profile" has no field 1 (a number)`},
		{"local P = require 'profile'\nP.extra = 1\nassert(P.extra == 1 and rawget(P, 'nope') == nil)", ""},
		{"local O = require 'own'\nassert(O.totl == nil)", ""},
	} {
		vm, _ := newTestState(t, Config{Dir: dir, Library: lib})
		got := ""
		if err := vm.Exec("t.lua", []byte(tc.src)); err != nil {
			got = err.Message
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.src, got, tc.want)
		}
	}
}

// A library module is compiled once per process and shared by every
// state, yet each state runs it afresh: what one run does to the module's
// table is not seen by the next, on any goroutine.
func TestLibraryModulesCompiledOnceRunPerState(t *testing.T) {
	src := `
		local stats = require "shared"
		assert(rawget(stats, "touched") == nil, "a previous state's change leaked")
		stats.touched = true
		return tostring(stats.mean ~= nil)`
	lib := fstest.MapFS{"shared.lua": {Data: []byte(`return { mean = function(t) return t[1] end }`)}}
	const states = 8
	done := make(chan string, states)
	for range states {
		go func() {
			vm := New(Config{Dir: t.TempDir(), Log: io.Discard, Library: lib})
			defer vm.Close()
			if err := vm.Exec("t.lua", []byte(src)); err != nil {
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
		if strings.HasPrefix(k.(string), libraryChunkPrefix+"shared.lua\x00") {
			n++
		}
		return true
	})
	if n != 1 {
		t.Errorf("%d compiled copies of scripts/shared.lua, want 1", n)
	}
}

// A module that is a symlink out of the scenario's folder is refused
// unread, as a workload path out of it is: its first line showed in the
// syntax error. A link that stays inside the folder works.
func TestRequireRefusesSymlinksOut(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "scen")
	writeFiles(t, root, map[string]string{
		"secret.lua":     "hunter2 is the password\n",
		"lib/m.lua":      "return 1",
		"scen/real.lua":  "return 2",
		"scen/sub/x.lua": "return 3",
	})
	for target, link := range map[string]string{
		"../secret.lua": "scen/out.lua",
		"../lib":        "scen/lib",
		"real.lua":      "scen/in.lua",
		"sub":           "scen/dir",
		"..":            "scen/up",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{
		"out":   "leads outside the scenario's folder",
		"lib.m": "leads outside the scenario's folder",
		// issue 36 item 5: the same whether what it leads to exists
		"up.lib.m":       "leads outside the scenario's folder",
		"up.outside.mod": "leads outside the scenario's folder",
		"in":             "",
		"dir.x":          "",
	} {
		vm, _ := newTestState(t, Config{Dir: dir})
		err := vm.Exec("s.lua", []byte(`require "`+name+`"`))
		if want == "" && err == nil { // and from the folder itself, named "."
			t.Chdir(dir)
			vm, _ = newTestState(t, Config{Dir: "."})
			err = vm.Exec("s.lua", []byte(`require "`+name+`"`))
		}
		switch {
		case want == "" && err != nil:
			t.Errorf("require %q: %v", name, err.Detail())
		case want != "" && (err == nil || !strings.Contains(err.Message, want)):
			t.Errorf("require %q: error %v, want %q", name, err, want)
		}
		if err != nil && strings.Contains(err.Message, "hunter2") {
			t.Errorf("require %q: the error shows the file: %s", name, err.Message)
		}
	}
}
