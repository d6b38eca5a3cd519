package luart

import (
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/runerr"
)

// fuzzChunk feeds the fuzzed number X and string S to every binding, each
// call under pcall: whatever the values, a binding must answer with a
// status or a Lua error, never a Go panic (a proflab bug).
const fuzzChunk = `
local lab = require "proflab"
local U = pcall(lab.u64, S) and lab.u64(S) or lab.u64(0)
local vals = { X, S, U, -X, nil, {}, true, X * 4096 }
local m = lab.machine{ cpus = 2, version = (pcall(lab.machine, { version = S }) and S) or "6.2" }
local p = m:process{ privileges = {"SeSystemProfilePrivilege"} }
local k = m:kernel{}
local buf = p:alloc(0x1000)
local calls = {
  function(v) return lab.u64(v) end,
  function(v) return lab.tonumber(v) end,
  function(v) return lab.status_name(v), lab.NT_SUCCESS(v), lab.win32_name(v), lab.bugcheck_name(v) end,
  function(v) return U + v, U - v, U * v, U / v, U % v, U .. tostring(v) end,
  function(v) return p:alloc(v) end,
  function(v) return p:alloc_at(v, 0x1000, "rw") end,
  function(v) return p:read_u32(v), p:read_u64(v), p:read_u32s(buf, v) end,
  function(v) return p:write_u8(buf, v), p:write_u32(v, 1), p:write_u64(buf, v) end,
  function(v) return p:protect(v, 0x1000, "r"), p:free(v) end,
  function(v) return p:NtCreateProfile(v, v, v, v, v, v, v, v, v) end,
  function(v) return p:NtCreateProfile(buf, nil, 0x400000, v, 12, buf, 0x1000, v, 1) end,
  function(v) return p:NtStartProfile(v), p:NtStopProfile(v), p:NtClose(v) end,
  function(v) return p:NtQueryIntervalProfile(v, buf), p:NtSetIntervalProfile(v, v) end,
  function(v) return p:NtQuerySystemInformation(v, buf, v, buf) end,
  function(v) return p:NtSetSystemInformation(v, buf, v) end,
  function(v) return p:TraceQueryInformation(v, v, buf, v, buf), p:TraceSetInformation(0, v, buf, v) end,
  function(v) return m:interrupt{ ip = v, source = v, cpu = 1 } end,
  function(v) return m:interrupt{ ip = 0x400000, cpu = v } end,
  function(v) return p:create_thread{ affinity = v } end,
  function(v) return p:thread():run_on(v) end,
  function(v) return p:open_process(p, v) end,
  function(v) return m:inject{ pool_failures = v } end,
  function(v) return lab.machine{ cpus = v } end,
  function(v) return lab.record{ x = v } end,
  function(v) return k:NtQueryIntervalProfile(0, v) end,
  function(v) return m:hal_sources(), m:hal_log(), m:bugcheck() end,
  function(v)
    if type(v) == "number" and v > 1e4 then return end -- keep runs short
    return m:run{ duration_us = v, workload = { process = p, functions = { { name = "f", base = 0x401000, size = v, weight = v } } } }
  end,
  function(v) return m:run{ duration_us = 10, workload = { process = p, functions = { { name = v, base = v, size = 64, weight = 1 } } } } end,
}
for _, f in ipairs(calls) do
  for i = 1, 8 do pcall(f, vals[i]) end
end
-- Every method of every kind of object, called on every kind of object
-- (t.run_on(p, 0), p.create_thread(k, {})): a Lua error, never a panic.
local t = p:create_thread{}
local s = m:start_kernel_logger{ profile = true }
local selves = { m, p, k, t, s, U, {}, S, X }
local owners = {
  [p] = { "id", "thread", "create_thread", "run_on", "cpu", "open_process", "alloc", "alloc_at", "protect", "free",
          "read_u8", "read_u32", "read_u64", "write_u8", "write_u32", "write_u64", "read_u32s",
          "NtClose", "NtStartProfile", "NtStopProfile", "NtCreateProfile", "NtQueryIntervalProfile", "NtSetIntervalProfile" },
  [m] = { "process", "kernel", "interrupt", "inject", "hal_sources", "hal_log", "bugcheck", "version", "arch", "cpu_count", "start_kernel_logger" },
  [s] = { "stop", "events" },
}
owners[k], owners[t] = owners[p], owners[p]
for owner, names in pairs(owners) do
  for _, name in ipairs(names) do
    local ok, fn = pcall(function() return owner[name] end)
    if ok and type(fn) == "function" then
      for _, self in ipairs(selves) do
        pcall(fn, self, vals[1], vals[2])
        pcall(fn, self, {})
      end
    end
  end
end
`

func FuzzBindings(f *testing.F) {
	for _, seed := range []struct {
		n float64
		s string
	}{{0, "0"}, {-1, "-1"}, {0x10000, "0xFFFFF80000001000"}, {1.5, "3.10"}, {9007199254740992, "10.0.10240"}, {4096, "x"}} {
		f.Add(seed.n, seed.s)
	}
	f.Fuzz(func(t *testing.T, n float64, s string) {
		rt := New(Config{Seed: 1, Dir: t.TempDir()})
		defer rt.Close()
		rt.L.SetGlobal("X", lua.LNumber(n))
		rt.L.SetGlobal("S", lua.LString(s))
		if err := rt.Exec("fuzz.lua", []byte(fuzzChunk)); err != nil {
			if err.Kind == runerr.KindBug {
				t.Fatalf("X=%v S=%q: %s", n, s, err.Detail())
			}
			return // an error outside pcall (the machine, say) is fine
		}
		if b := rt.Bug(); b != nil {
			t.Fatalf("X=%v S=%q: %s", n, s, b.Detail())
		}
	})
}
