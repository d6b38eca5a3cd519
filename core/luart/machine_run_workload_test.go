package luart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// A workload that says create_processes (as an imported one does) runs on
// a machine that has none of its processes: they are made for the run,
// with a normal process's token.
func TestRunCreatesAnImportedWorkloadsProcesses(t *testing.T) {
	dir := t.TempDir()
	wl := `create_processes = true
[[process]]
name = "server"
[[process.function]]
name = "f"
base = "0x401000"
size = 4096
weight = 1
`
	if err := os.WriteFile(filepath.Join(dir, "w.toml"), []byte(wl), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, _ := newTestRuntime(t, Config{Dir: dir, HALs: inprocHALs(t)})
	err := rt.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{ cpus = 1 }
		local a = m:run{ duration_us = 1000, workload = "w.toml" }
		local b = m:run{ duration_us = 1000, workload = "w.toml" }
		assert(a.truth.f.instructions > 0 and b.truth.f.instructions > 0)`))
	if err != nil {
		t.Errorf("create_processes: %s", err.Detail())
	}
}

// m:run's truth names a function two images define "image!name", and its
// stacks give each calling context's frames, truth and hits.
func TestRunTruthOfStacksAndSharedNames(t *testing.T) {
	rt, _ := newTestRuntime(t, Config{HALs: inprocHALs(t)})
	err := rt.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{ cpus = 1 }
		local p = m:process{ name = "app", privileges = { "SeSystemProfilePrivilege" } }
		local k = m:kernel{}
		k:NtSetIntervalProfile(1221, lab.ProfileTime)
		local buf, hp = p:alloc(0x1000), p:alloc(8)
		p:NtCreateProfile(hp, -1, 0x400000, 0x1000, 8, buf, 0x1000, lab.ProfileTime, 1)
		p:NtStartProfile(p:read_u64(hp))
		local res = m:run{ duration_us = 100000, workload = {
		  image = {
		    { name = "app", base = 0x400000, functions = { { name = "main", offset = 0, size = 0x100 }, { name = "helper", offset = 0x100, size = 0x100 } } },
		    { name = "lib", base = 0x500000, functions = { { name = "helper", offset = 0, size = 0x100 } } },
		  },
		  process = { { name = "app", stacks = {
		    { frames = { "app!helper", "main" }, weight = 1 },
		    { frames = { "lib!helper", "main" }, weight = 1 },
		  } } } } }
		assert(res.truth["app!helper"].instructions > 0 and res.truth["lib!helper"].instructions > 0, "qualified truth keys")
		assert(res.truth.helper == nil, "no plain key for a shared name")
		assert(res.truth.main.instructions == 0 and res.truth.main.inclusive.instructions ==
		  res.truth["app!helper"].instructions + res.truth["lib!helper"].instructions, "main's inclusive truth")
		assert(#res.stacks == 2 and res.stacks[1].frames[1] == "app!helper" and res.stacks[1].frames[2] == "main", "frames")
		assert(res.stacks[1].instructions == res.truth["app!helper"].instructions, "stack truth")
		assert(res.stacks[1].hits.ProfileTime + res.stacks[2].hits.ProfileTime == res.interrupts.ProfileTime, "hits")`))
	if err != nil {
		t.Errorf("%s", err.Detail())
	}
}

// A profile that does not say where a program ran (a legacy heap
// profile) runs, and the run log says so once, however many runs read it.
func TestRunWarnsOfAProfileThatIsNotCPUTime(t *testing.T) {
	dir := t.TempDir()
	heap := "heap profile:   2:   2048 [   3:   4096] @ heapprofile\n   1:   1024 [   2:   2048] @ 0x401000 0x402000\n   1:   1024 [   1:   2048] @ 0x401100 0x402000\n\nMAPPED_LIBRARIES:\n00400000-00452000 r-xp 00000000 08:01 131090 /usr/bin/heapy\n"
	if err := os.WriteFile(filepath.Join(dir, "heap.prof"), []byte(heap), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, log := newTestRuntime(t, Config{Dir: dir, HALs: inprocHALs(t)})
	err := rt.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{ cpus = 1 }
		m:run{ duration_us = 1000, workload = "heap.prof" }
		m:run{ duration_us = 1000, workload = "heap.prof" }`))
	if err != nil {
		t.Fatalf("run: %s", err.Detail())
	}
	if n := strings.Count(log.String(), "warning: workload heap.prof: a memory profile, not a CPU profile"); n != 1 {
		t.Errorf("the log warned %d times, want once:\n%s", n, log.String())
	}
}

// Inclusive truth counts a stack once for each distinct function on it:
// a recursive stack (f called by f, as real profiles have them) adds its
// execution to f once, not twice; and a function drawn without a stack
// adds its own to its caller chain.
func TestRunInclusiveTruthOfRecursiveStacks(t *testing.T) {
	rt, _ := newTestRuntime(t, Config{HALs: inprocHALs(t)})
	err := rt.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{ cpus = 1 }
		m:process{ name = "app" }
		local res = m:run{ duration_us = 100000, workload = {
		  image = { { name = "app", base = 0x400000, functions = {
		    { name = "main", offset = 0, size = 0x100 },
		    { name = "f", offset = 0x100, size = 0x100 },
		    { name = "g", offset = 0x200, size = 0x100 } } } },
		  process = { { name = "app", stacks = {
		    { frames = { "g", "f", "f", "main" }, weight = 1 },
		    { frames = { "f", "main" }, weight = 1 },
		  } } } } }
		local g, f, main = res.truth.g, res.truth.f, res.truth.main
		assert(g.instructions > 0 and f.instructions > 0, "both leaves ran")
		assert(f.inclusive.instructions == f.instructions + g.instructions,
		  ("f's inclusive %d, want its own %d + g's %d (the recursive stack once)"):format(f.inclusive.instructions, f.instructions, g.instructions))
		assert(main.inclusive.instructions == f.instructions + g.instructions, "main's inclusive")`))
	if err != nil {
		t.Errorf("inclusive truth: %s", err.Detail())
	}
}

// The Lua table form says inlining as TOML does (inline = true, a
// stack's inlined positions): the inlined function's truth is its own
// (flat and inclusive), its caller's code holds it (code), and the
// stacks say which frames are inlined.
func TestRunTruthOfInlinedFrames(t *testing.T) {
	rt, _ := newTestRuntime(t, Config{HALs: inprocHALs(t)})
	err := rt.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{ cpus = 1 }
		m:process{ name = "app" }
		local w = {
		  image = { { name = "app", base = 0x400000, functions = {
		    { name = "main", offset = 0, size = 0x100 },
		    { name = "loop", offset = 0x100, size = 0x100 },
		    { name = "scale", offset = 0x200, size = 0x100 },
		    { name = "mix", inline = true } } } },
		  process = { { name = "app", stacks = {
		    { frames = { "mix", "loop", "main" }, weight = 2 },
		    { frames = { "scale", "loop", "main" }, inlined = { 1 }, weight = 1 },
		    { frames = { "loop", "main" }, weight = 1 },
		  } } } }
		local res = m:run{ duration_us = 100000, workload = w }
		for _, img in ipairs(m:images{ workload = w }.images) do
		  for _, f in ipairs(img.functions) do assert(f.name ~= "mix", "m:images lists the inline function") end
		end
		local mix, scale, loop = res.truth.mix, res.truth.scale, res.truth.loop
		assert(mix.instructions == res.stacks[1].instructions and mix.instructions > 0, "mix's own truth is its stack's")
		assert(mix.code.instructions == 0 and scale.code.instructions == 0, "inlined code runs in loop's")
		assert(loop.code.instructions == mix.instructions + scale.instructions + loop.instructions, "loop's code")
		assert(mix.inclusive.instructions == mix.instructions, "mix's inclusive")
		assert(loop.inclusive.instructions == loop.code.instructions, "loop's inclusive")
		assert(res.stacks[1].inlined[1] == 1 and res.stacks[2].inlined[1] == 1 and res.stacks[3].inlined == nil, "stacks' inlined frames")`))
	if err != nil {
		t.Errorf("inlined frames: %s", err.Detail())
	}
}

// m:run's truth and stacks are built when the scenario first reads
// them, with the values a walk of the whole result sees.
func TestRunResultBuildsWhatIsRead(t *testing.T) {
	rt, _ := newTestRuntime(t, Config{HALs: inprocHALs(t)})
	err := rt.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{ cpus = 1 }
		local p = m:process{ name = "app" }
		local w = { image = { { name = "app", base = 0x400000, functions = { { name = "main", offset = 0, size = 0x100 }, { name = "leaf", offset = 0x100, size = 0x100 } } } },
		  process = { { name = "app", stacks = { { frames = { "leaf", "main" }, weight = 1 } } } } }
		unread = m:run{ duration_us = 1000, workload = w }
		assert(getmetatable(unread) == nil, "a result has no metatable")
		read = m:run{ duration_us = 1000, workload = w }
		local leaf = read.truth.leaf.instructions
		walked = m:run{ duration_us = 1000, workload = w }
		local keys = {}
		for k in pairs(walked) do keys[#keys + 1] = k end
		-- every key, in the order a result built whole had them
		assert(table.concat(keys, " ") == "interrupts interrupts_by_cpu truth stacks intervals start end log", table.concat(keys, " "))
		stepped = m:run{ duration_us = 1000, workload = w }
		keys = {}
		local k = next(stepped)
		while k do keys[#keys + 1] = k; k = next(stepped, k) end
		assert(table.concat(keys, " ") == "interrupts interrupts_by_cpu truth stacks intervals start end log", table.concat(keys, " "))
		assert(walked.stacks[1].frames[2] == "main" and walked.stacks[1].instructions == walked.truth.leaf.instructions, "stacks")
		assert(leaf == walked.truth.leaf.instructions and leaf > 0, "the same truth read or walked")`))
	if err != nil {
		t.Fatal(err.Detail())
	}
	raw := func(name, field string) bool {
		return rt.L.GetGlobal(name).(*lua.LTable).RawGetString(field) != lua.LNil
	}
	for _, c := range []struct {
		result, field string
		built         bool
	}{
		{"unread", "truth", false}, {"unread", "stacks", false},
		{"read", "truth", true}, {"read", "stacks", false},
		{"walked", "truth", true}, {"walked", "stacks", true},
		{"stepped", "truth", true}, {"stepped", "stacks", true},
	} {
		if got := raw(c.result, c.field); got != c.built {
			t.Errorf("%s.%s built: %v, want %v", c.result, c.field, got, c.built)
		}
	}
}
