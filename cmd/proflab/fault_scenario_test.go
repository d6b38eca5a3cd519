package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/halplugins/halrpc/halrpctest"

	"github.com/proflab/proflab/core/runerr"
)

// The fault suite's scenario-side faults (budgets, errors, stable names,
// wrong input, builtins that ignore the context) and the signals that end
// `hal check`; the plugin-side faults and the suite's helpers are in
// fault_test.go.

// Items 5, 6 and 7: the scenario-side faults, each an error of the
// scenario (exit 1) with the scenario's file:line, in well under a second
// or two.
func TestFaultScenarioBudgetsAndErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		args      []string
		code      int
		want      []string
	}{
		{"coroutine bomb", "local function f() local c = coroutine.wrap(f) return c() end\nprint(pcall(f))", nil,
			ExitFailed, []string{"s.lua:2: C stack overflow (coroutines nested more than 200 deep", "(0 checks; memory)"}},
		{"string.rep 2^31", `local s = string.rep("x", 2^31)`, nil,
			ExitFailed, []string{"s.lua:1: string.rep: the result would be 2147483648 bytes, over the scenario's memory budget of 1 GiB (--memory)"}},
		{"string.rep under --memory", `local s = string.rep("x", 2^21)`, []string{"--memory", "1MiB"},
			ExitFailed, []string{"over the scenario's memory budget of 1 MiB (--memory)"}},
		{"string.rep under run.memory", `local s = string.rep("x", 2^21)`, []string{"--config-set", `run.memory="1MiB"`},
			ExitFailed, []string{"over the scenario's memory budget of 1 MiB (--memory)"}},
		{"no budget", `local s = string.rep("x", 2^21) print(#s)`, []string{"--memory", "0"},
			ExitOK, []string{"2097152"}},
		{"table.concat", `local t = {} for i = 1, 1000 do t[i] = string.rep("y", 2048) end print(#table.concat(t))`, []string{"--memory", "1MiB"},
			ExitFailed, []string{"s.lua:1: table.concat: the result would be"}},
		{"heap watchdog", `local t = {} for i = 1, 1e9 do t[i] = { i, i, i } end`, []string{"--memory", "64MiB"},
			ExitFailed, []string{"s.lua:1: scenario exceeded its memory budget of 64 MiB (--memory)", "(0 checks; memory)"}},
		{"unpack", `print(select("#", unpack({}, 1, 1e6)))`, []string{"--timeout", "1s"},
			ExitFailed, []string{"s.lua:1: too many results to unpack"}},
		{"stack overflow", "local function f(n) return 1 + f(n + 1) end\nf(1)", nil,
			ExitFailed, []string{"s.lua:1: stack overflow", "stack traceback:", "(0 checks; error)"}},
		// issue 29 case 18: an overflow through pcall was a "proflab bug"
		// (exit 4, a nil pointer dereference) or went on with a corrupt state
		{"stack overflow through pcall", "local function r(n) pcall(r, n + 1) end\nr(1)", nil,
			ExitFailed, []string{"s.lua:1: stack overflow (more than 1024 nested calls: endless recursion?)", "(0 checks; error)"}},
		{"stack overflow through pcall, other parity", "local function r(n) pcall(r, n + 1) end\npcall(r, 1)\nprint('went on')", nil,
			ExitFailed, []string{"s.lua:1: stack overflow (more than 1024 nested calls: endless recursion?)", "went on", "(0 checks; error)"}},
		// issue 29 case 12: s = s .. s went past --memory 64MiB to 1 GB
		{"s = s .. s", "local s = string.rep('x', 2^20)\nfor i = 1, 40 do s = s .. s end", []string{"--memory", "64MiB"},
			ExitFailed, []string{"s.lua:2: string concatenation (..): the result would be 134217728 bytes, over the scenario's memory budget of 64 MiB (--memory)", "(0 checks; memory)"}},
		// issue 29 case 1: nesting that ended the process with Go's fatal
		// stack overflow at 10^6 levels (core/luavm's test has those)
		{"nested tables", "local t = " + strings.Repeat("{", 5000) + strings.Repeat("}", 5000), nil,
			ExitFailed, []string{"s.lua:1: chunk has too many syntax levels: blocks, brackets and operators nest more than 1000 deep here", "(0 checks; error)"}},
		{"thread method on a process", "local lab = require 'proflab'\nlocal m = lab.machine{ hal = {} }\nlocal p = m:process{}\nlocal t = p:create_thread{}\nt.run_on(p, 0)", nil,
			ExitFailed, []string{"s.lua:5: run_on: called on a process; it works on kernel callers and threads"}},
		{"process method on a kernel caller", "local lab = require 'proflab'\nlocal m = lab.machine{ hal = {} }\nlocal p = m:process{}\np.create_thread(m:kernel(), {})", nil,
			ExitFailed, []string{"s.lua:4: create_thread: called on a kernel caller; it works on processes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// each case ends in well under a second alone; the bound says it
			// ends (the endless ones would run for hours), with room for the
			// race detector on a loaded 2-core machine
			code, out := runFault(t, tc.src, time.Minute, tc.args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d; output:\n%s", code, tc.code, out)
			}
			expectOutput(t, out, tc.want...)
			if strings.Contains(out, "proflab bug") {
				t.Errorf("reported as a proflab bug:\n%s", out)
			}
		})
	}
}

// Item 7: error kinds map to the documented exit codes in one place.
func TestExitCodeOfEachErrorKind(t *testing.T) {
	for kind, want := range map[string]int{
		"lua": ExitFailed, "memory": ExitFailed, "timeout": ExitFailed, "interrupted": ExitInterrupted,
		"input": ExitUsage, "plugin": ExitPlugin, "bug": ExitInternal,
	} {
		if got := exitCodeOfKind(runerr.Kind(kind)); got != want {
			t.Errorf("kind %s: exit code %d, want %d", kind, got, want)
		}
	}
}

// Item 9: tostring of tables, functions and coroutines is the same in
// every run of the same scenario, and shows no heap address.
func TestFaultStableNames(t *testing.T) {
	src := `local lab = require "proflab"
local t = {}
print(tostring({}), tostring(print), t, tostring(t), string.format("%s", t), coroutine.create(print))
lab.record{ name = tostring(t) }
lab.check(false, t)`
	file := writeScenario(t, t.TempDir(), "s.lua", src)
	var outs []string
	for range 2 {
		dir := t.TempDir()
		runCLI("run", file, "--out", dir)
		var files []string
		for _, f := range []string{"log.txt", "result.json"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			// The wall-clock timings are the only bytes allowed to differ.
			files = append(files, regexp.MustCompile(`"wall_seconds": [0-9.e-]+`).ReplaceAllString(string(b), ""))
		}
		outs = append(outs, strings.Join(files, "\n"))
	}
	if outs[0] != outs[1] {
		t.Errorf("two runs wrote different bytes:\n%s\n---\n%s", outs[0], outs[1])
	}
	if addr := regexp.MustCompile(`0x[0-9a-f]{9,}`).FindString(outs[0]); addr != "" {
		t.Errorf("a heap address %s in the output:\n%s", addr, outs[0])
	}
	expectOutput(t, outs[0], "table: 0x00000001\tfunction: 0x00000002\ttable: 0x00000003\ttable: 0x00000003\ttable: 0x00000003\tthread: 0x00000004")
}

// Item 8: input that was silently wrong or unbounded is modelled
// correctly or refused with the field named.
func TestFaultSilentlyWrongInput(t *testing.T) {
	const machine = "local lab = require 'proflab'\nlocal m = lab.machine{ cpus = 2, hal = {} }\nlocal p = m:process{ name = 'app' }\n"
	const fns = `functions = { { name = "a", base = 0x401000, size = 0x100, weight = 1e308 }, { name = "b", base = 0x402000, size = 0x100, weight = 1e308 } }`
	for _, tc := range []struct {
		name, src string
		args      []string
		code      int
		want      []string
	}{
		{"huge weights share evenly", machine + `local r = m:run{ duration_us = 20000, workload = { process = p, ` + fns + ` } }
local a, b = r.truth.a.instructions, r.truth.b.instructions
lab.check(a > 0 and b > 0 and math.abs(a - b) / (a + b) < 0.1, ("a %s, b %s"):format(tostring(a), tostring(b)))`, nil,
			ExitOK, []string{"PASS "}},
		{"cpi 1e-300", machine + `m:run{ duration_us = 1000, workload = { process = p, functions = { { name = "a", base = 0x401000, size = 0x100, weight = 1, cpi = 1e-300 } } } }`, nil,
			ExitFailed, []string{"s.lua:4:", "cpi: must be between 0.01"}},
		{"cpu 10 of 2", machine + `m:run{ duration_us = 1000, workload = { process = p, threads = { { cpu = 10 } }, functions = { { name = "a", base = 0x401000, size = 0x100, weight = 1 } } } }`, nil,
			ExitFailed, []string{"s.lua:4:", "threads[1].cpu: 10, but the machine has 2 processors"}},
		{"alloc 4 GB again and again", machine + `for i = 1, 10 do p:alloc(2^32) end`, nil,
			ExitFailed, []string{"s.lua:4: p:alloc(0x100000000): the machine's allocations would reach 12 GiB, over proflab's limit of 8 GiB per machine"}},
		{"a 10 MB string in an error", "local lab = require 'proflab'\nlab.machine{ version = string.rep('x', 1e7) }", nil,
			ExitFailed, []string{"s.lua:2: lab.machine{...}: field \"version\"", "-byte message]"}},
		{"negative --timeout", "print(1)", []string{"--timeout", "-5s"},
			ExitUsage, []string{"--timeout -5s: a budget cannot be negative"}},
		{"machine.hal = []", "print(1)", []string{"--config-set", "machine.hal=[]"},
			ExitUsage, []string{"machine.hal: empty"}},
		{"machine.seed = -5", "print(1)", []string{"--config-set", "machine.seed=-5"},
			ExitUsage, []string{"machine.seed: -5, want a seed >= 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := runFault(t, tc.src, 20*time.Second, tc.args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d; output:\n%.2000s", code, tc.code, out)
			}
			expectOutput(t, out[:min(len(out), 10000)], tc.want...)
			if len(out) > 10000 {
				t.Errorf("output of %d bytes", len(out))
			}
		})
	}
}

// Item 6 (and issue 36 item 7): a pathological string pattern, which
// backtracked in one Go call without looking at the context and had to
// be abandoned 3 s after the budget or a signal (going on in the
// background), now stops within milliseconds of them: the run ends with
// the budget's or the signal's error at the scenario's line, not
// abandoned.
func TestFaultLongBuiltinEndsAtTheBudget(t *testing.T) {
	src := "print('ready')\nprint(string.find(string.rep('a', 5000), '.-.-.-b'))\n"
	for _, tc := range []struct {
		name string
		args []string
		sig  syscall.Signal
		code int
		want string
	}{
		{"time budget", []string{"--timeout", "1s"}, 0, ExitFailed, "s.lua:2: scenario exceeded its time budget of 1s (--timeout)"},
		{"SIGTERM", nil, syscall.SIGTERM, ExitInterrupted, "scenario interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startProflab(t, append([]string{"run", writeScenario(t, t.TempDir(), "s.lua", src)}, tc.args...)...)
			for !strings.Contains(p.out.String(), "ready\n") && time.Since(p.started) < 20*time.Second {
				time.Sleep(10 * time.Millisecond)
			}
			for _, pid := range children(p.cmd.Process.Pid) {
				if strings.Contains(cmdline(pid), "proflab-hal-") {
					p.plugins[pid] = true
				}
			}
			ready := time.Now()
			if tc.sig != 0 {
				time.Sleep(200 * time.Millisecond)
				if err := p.cmd.Process.Signal(tc.sig); err != nil {
					t.Fatal(err)
				}
			}
			code, _ := p.wait(t, time.Since(p.started)+10*time.Second)
			if took := time.Since(ready); took > 8*time.Second {
				t.Errorf("proflab ended %s after the scenario got stuck", took)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			expectOutput(t, p.out.String(), tc.want)
			if strings.Contains(p.out.String(), "abandoned") {
				t.Errorf("the run was abandoned:\n%s", p.out.String())
			}
			noneLeft(t, p.plugins)
		})
	}
}

// A plugin that crashes in HalStartProfileInterrupt, which returns nothing
// to the kernel and is therefore sent without waiting: the crash fails the
// run with exit 3, naming the call, whether a run follows the start, the
// script ends right after it, or the script catches every error.
func TestFaultCrashInADeferredStart(t *testing.T) {
	dir := t.TempDir()
	paths, err := halrpctest.Install(dir, halrpctest.FaultyAs("crash"))
	if err != nil {
		t.Fatal(err)
	}
	const setup = `local lab = require "proflab"
local P = require "profile"
local m = lab.machine{ cpus = 2, hal = { "apic" } }
local p = m:process{ name = "app", privileges = { "SeSystemProfilePrivilege" } }
`
	for _, tc := range []struct{ name, body, where string }{
		{"then a run", `local pr = P.create_and_start(p, { base = 0x400000, size = 0x1000 })
m:run{ duration_us = 1000, workload = { process = p, functions = { { name = "f", base = 0x400000, size = 0x100, weight = 1 } } } }
`, "s.lua:6: m:run"},
		{"then the end", `local pr = P.create_and_start(p, { base = 0x400000, size = 0x1000 })
`, ""},
		{"caught", `pcall(P.create_and_start, p, { base = 0x400000, size = 0x1000 })
pcall(function() m:run{ duration_us = 1000, workload = { process = p, functions = { { name = "f", base = 0x400000, size = 0x100, weight = 1 } } } } end)
`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := runFault(t, setup+tc.body, 10*time.Second, "--config-set", fmt.Sprintf("hal.apic.plugin=%q", paths[0]))
			if code != ExitPlugin {
				t.Errorf("exit code %d, want %d:\n%s", code, ExitPlugin, out)
			}
			expectOutput(t, out, `hal "apic"`, "start ProfileTime on processors [0 1]", "the plugin process exited", tc.where)
		})
	}
}

// Ctrl-C or SIGTERM during `hal check` of a plugin that hangs ends the
// command promptly with exit 130 and stops the plugin.
func TestFaultSignalEndsHalCheck(t *testing.T) {
	dir := t.TempDir()
	paths, err := halrpctest.Install(dir, halrpctest.FaultyAs("hang"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			p := startProflab(t, "hal", "check", paths[0], "--timeout", "60s")
			var pid int
			for deadline := time.Now().Add(10 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				for _, c := range children(p.cmd.Process.Pid) {
					if strings.Contains(cmdline(c), "hal-hang") {
						pid = c
						p.plugins[c] = true
					}
				}
			}
			if pid == 0 {
				t.Fatalf("the plugin did not start; output:\n%s", p.out.String())
			}
			time.Sleep(300 * time.Millisecond) // into the check that hangs
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code, _ := p.wait(t, time.Since(p.started)+5*time.Second)
			if code != ExitInterrupted {
				t.Errorf("exit code %d, want %d; output:\n%s", code, ExitInterrupted, p.out.String())
			}
			expectOutput(t, p.out.String(), "stopped by a signal")
			noneLeft(t, p.plugins)
		})
	}
}
