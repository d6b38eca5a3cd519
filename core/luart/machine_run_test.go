package luart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
)

// inprocHALs is the plugin host over the shipped HALs' logic in-process
// (transport "inproc"): real hardware programming without executables.
func inprocHALs(t *testing.T) lab.HALProvider {
	t.Helper()
	cfg := config.Default()
	hals := map[string]config.HAL{}
	for name, h := range cfg.HAL {
		h.Transport = config.TransportInproc
		hals[name] = h
	}
	host := halhost.New(hals, halhost.Options{})
	t.Cleanup(host.Close)
	return &lab.HostHALs{Host: host, HALNames: cfg.HALNames()}
}

func runScript(t *testing.T, cfg Config, src string) *Runtime {
	t.Helper()
	rt, log := newTestRuntime(t, cfg)
	if err := rt.Exec("s.lua", []byte("local lab = require 'proflab'\n"+src)); err != nil {
		t.Fatalf("%s\nlog:\n%s", err.Detail(), log)
	}
	for _, c := range rt.Checks() {
		if !c.Passed {
			t.Errorf("%s: %s", c.Where, c.Message)
		}
	}
	if len(rt.Checks()) == 0 {
		t.Error("no checks")
	}
	return rt
}

const runWorkload = `
local m = lab.machine{ cpus = 2, hal = {"apic", "pmu"} }
local p = m:process{ privileges = {"SeSystemProfilePrivilege"} }
local fns = {
  { name = "hot", base = 0x401000, size = 0x1000, weight = 3 },
  { name = "cold", base = 0x402000, size = 0x1000, weight = 1 },
}
local buf, hp = p:alloc(0x1000), p:alloc(8)
lab.check(p:NtCreateProfile(hp, nil, 0x400000, 0x10000, 12, buf, 0x1000, lab.ProfileTime, 3) == lab.STATUS_SUCCESS, "create")
lab.check(p:NtStartProfile(p:read_u64(hp)) == lab.STATUS_SUCCESS, "start")
local res = m:run{ duration_us = 100000, workload = { process = p, functions = fns } }
`

func TestRunWithTheHALs(t *testing.T) {
	runScript(t, Config{Seed: 1, HALs: inprocHALs(t)}, runWorkload+`
local n = res.interrupts.ProfileTime or 0
lab.check(n > 0, "ProfileTime interrupts: " .. n)
lab.check((res.interrupts_by_cpu[0].ProfileTime or 0) + ((res.interrupts_by_cpu[1] or {}).ProfileTime or 0) == n, "by cpu adds up")
local hot, cold = res.truth.hot, res.truth.cold
lab.check(hot and cold and hot.instructions > 0 and cold.instructions > 0, "truth per function")
lab.check(math.abs(hot.instructions / (hot.instructions + cold.instructions) - 0.75) < 0.05, "weights are shares of instructions")
lab.check(hot.cycles > 0 and type(hot.events) == "table", "cycles and events")
local b = p:read_u32s(buf, 3)
lab.check(b[2] + b[3] > 0 and b[2] > b[3], "buckets counted, hot more: " .. b[2] .. " vs " .. b[3])
lab.check(res["end"] > res.start, "simulated time advances")
local res2 = m:run{ duration_us = 1000, workload = { process = p, functions = fns } }
lab.check(res2.start == res["end"], "a second run continues in time")
`)
}

func TestRunIsDeterministic(t *testing.T) {
	get := func(seed uint64) (float64, float64) {
		rt := runScript(t, Config{Seed: seed, HALs: inprocHALs(t)}, runWorkload+`
lab.record{ n = res.interrupts.ProfileTime or 0, hot = res.truth.hot.instructions }
lab.check(true)`)
		r := rt.Records()
		return r["n"].(float64), r["hot"].(float64)
	}
	n1, h1 := get(5)
	n2, h2 := get(5)
	if n1 != n2 || h1 != h2 {
		t.Errorf("same seed, different runs: %v/%v vs %v/%v", n1, h1, n2, h2)
	}
}

func TestRunWorkloadFileAndErrors(t *testing.T) {
	dir := t.TempDir()
	wl := `
[[process]]
name = "app"

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
		m:process{ name = "app" }
		local res = m:run{ duration_us = 1000, workload = "w.toml" }
		assert(res.truth.f and res.truth.f.instructions > 0)`))
	if err != nil {
		t.Errorf("workload file: %s", err.Detail())
	}
	rt, _ = newTestRuntime(t, Config{Dir: dir, HALs: inprocHALs(t)})
	err = rt.Exec("s.lua", []byte(`local lab = require "proflab"
		lab.machine{ cpus = 1 }:run{ duration_us = 1000, workload = "w.toml" }`))
	if want := `process[1].name: no process named "app" on this machine; make it first with m:process{ name = "app" }`; err == nil || !strings.Contains(err.Message, want) {
		t.Errorf("a workload naming no process of the machine: %v, want %q", err, want)
	}
	bad := []struct{ src, want string }{
		{`lab.machine{}:run{ workload = {} }`, `field "duration_us": is required`},
		{`lab.machine{}:run{ duration_us = 10 }`, `field "workload": is required`},
		{`lab.machine{}:run{ duration_us = -1, workload = {} }`, `field "duration_us": -1 is negative`},
		{`lab.machine{}:run{ duration_us = 10, workload = 5 }`, `field "workload": expected a workload file's path or a table`},
		{`lab.machine{}:run{ duration_us = 10, workload = "missing.toml" }`, `missing.toml`},
		{`local m = lab.machine{} m:run{ duration_us = 10, workload = { functions = {} } }`, `process`},
		{`local m = lab.machine{} local p = m:process{} m:run{ duration_us = 10, workload = { process = p, functions = { { name = "f", base = 0x401000, size = 16, weight = 1, colour = "red" } } } }`, `colour`},
		{`local m = lab.machine{} local p = lab.machine{}:process{} m:run{ duration_us = 10, workload = { process = p } }`, `another machine`},
		{`lab.machine{}:run{ duration_us = 10, workload = {}, extra = 1 }`, `unknown field "extra"`},
		// issue 13: what the machine lacks is refused, with the field
		{`local m = lab.machine{ cpus = 2 } local p = m:process{} m:run{ duration_us = 10, workload = { process = p, threads = { { cpu = 10 } }, functions = { { name = "f", base = 0x401000, size = 16, weight = 1 } } } }`,
			`threads[1].cpu: 10, but the machine has 2 processors (0…1)`},
	}
	for _, tc := range bad {
		wantLabError(t, tc.src, tc.want)
	}
}

func TestRunTruthHasTheCallStructure(t *testing.T) {
	runScript(t, Config{Seed: 1, HALs: inprocHALs(t)}, `
local m = lab.machine{ cpus = 1, hal = {"apic"} }
local p = m:process{}
local res = m:run{ duration_us = 20000, workload = { process = p, functions = {
  { name = "main", base = 0x401000, size = 0x1000, weight = 1 },
  { name = "parse", base = 0x402000, size = 0x1000, weight = 1, caller = "main" },
  { name = "lex", base = 0x403000, size = 0x1000, weight = 2, caller = "parse" },
} } }
local t = res.truth
lab.check(t.lex.caller == "parse" and t.parse.caller == "main" and t.main.caller == nil, "callers")
lab.check(t.lex.inclusive.instructions == t.lex.instructions, "a leaf's inclusive is its own")
lab.check(t.parse.inclusive.instructions == t.parse.instructions + t.lex.instructions, "parse includes lex")
lab.check(t.main.inclusive.cycles == t.main.cycles + t.parse.cycles + t.lex.cycles, "main includes everything")
lab.check(t.main.inclusive.instructions > 3 * t.main.instructions, "inclusive differs from flat")
`)
}
