package main

// The fault suite (issue 13): each fault and hostile input a careless user
// or an attacker tried ends promptly, with its documented exit code and a
// message that says what happened, and leaves no process behind. The
// plugin cases run proflab as a real process (this test binary, re-run as
// proflab) with the real apic plugin (./bin's under make test, else the
// one TestMain serves from this binary).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/halplugins/halrpc"
)

// envFaultMain makes this test binary behave as proflab.
const envFaultMain = "PROFLAB_FAULT_SUITE_MAIN"

// init runs proflab instead of the tests when the fault suite starts this
// binary as proflab (and not as a plugin, which inherits the variable).
func init() {
	if os.Getenv(envFaultMain) != "" && os.Getenv(halrpc.MagicCookieKey) == "" {
		os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and readers at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proflabProcess is proflab running as a separate process.
type proflabProcess struct {
	cmd     *exec.Cmd
	out     syncBuffer
	started time.Time
	plugins map[int]bool // every plugin pid seen
}

// startProflab runs proflab with args as a process of its own.
func startProflab(t *testing.T, args ...string) *proflabProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &proflabProcess{plugins: map[int]bool{}}
	p.cmd = exec.Command(exe, args...)
	p.cmd.Env = append(os.Environ(), envFaultMain+"=1") // TestMain set PROFLAB_PLUGIN_PATH
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
		for pid := range p.plugins {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return p
}

// plugin waits until the scenario has printed "ready" (its machine is
// made) and returns the pid of proflab's apic plugin process.
func (p *proflabProcess) plugin(t *testing.T) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(p.out.String(), "ready\n") {
		if time.Now().After(deadline) {
			t.Fatalf("the scenario did not get ready; output:\n%s", p.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for time.Now().Before(deadline) {
		for _, pid := range children(p.cmd.Process.Pid) {
			if strings.Contains(cmdline(pid), "proflab-hal-apic") {
				p.plugins[pid] = true
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no apic plugin started; output:\n%s", p.out.String())
	return 0
}

// wait waits for proflab to exit within max and returns its exit code
// and how long it ran from start.
func (p *proflabProcess) wait(t *testing.T, max time.Duration) (int, time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(max + 30*time.Second):
		_ = p.cmd.Process.Kill()
		<-done
		t.Fatalf("proflab still running %s after it started (want at most %s); output:\n%s", time.Since(p.started).Round(time.Millisecond), max, p.out.String())
	}
	took := time.Since(p.started)
	if took > max {
		t.Errorf("proflab took %s, want at most %s", took.Round(time.Millisecond), max)
	}
	return p.cmd.ProcessState.ExitCode(), took
}

// noneLeft fails t if a process in pids still runs a second after
// proflab exited.
func noneLeft(t *testing.T, pids map[int]bool) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for pid := range pids {
		for processAlive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d (%s) outlived proflab", pid, cmdline(pid))
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procStat(child); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// procStat is /proc/PID/stat after the command name: state, ppid, ….
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.ReplaceAll(string(b), "\x00", " ")
}

// processAlive reports whether pid runs (a zombie counts as gone).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	f := procStat(pid)
	return len(f) > 0 && f[0] != "Z"
}

// stopProcess SIGSTOPs pid and waits until it is stopped.
func stopProcess(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if f := procStat(pid); len(f) > 0 && f[0] == "T" {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("plugin %d did not stop", pid)
}

// busyScenario calls the apic plugin over and over between short
// simulated runs, for a long time.
const busyScenario = `local lab = require "proflab"
local m = lab.machine{ cpus = 2, hal = { "apic" } }
local p = m:process{ name = "server", privileges = { "SeSystemProfilePrivilege" } }
print("ready")
for i = 1, 1e9 do
  p:NtSetIntervalProfile(1221 + i % 100, lab.ProfileTime)
  m:run{ duration_us = 1000, workload = "server.toml" }
end
`

// longRunScenario spends a long time in one m:run, calling no plugin.
const longRunScenario = `local lab = require "proflab"
local m = lab.machine{ cpus = 2, hal = { "apic" } }
local p = m:process{ name = "server", privileges = { "SeSystemProfilePrivilege" } }
p:NtSetIntervalProfile(1221, lab.ProfileTime)
print("ready")
m:run{ duration_us = 3600e6, workload = "server.toml" }
`

// scenarioDir writes a scenario beside the example server workload.
func scenarioDir(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	w, err := os.ReadFile(filepath.Join("..", "..", "examples", "workloads", "server.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server.toml"), w, 0o644); err != nil {
		t.Fatal(err)
	}
	return writeScenario(t, dir, "s.lua", src)
}

func expectOutput(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// Item 1: a frozen plugin. The run's time budget ends it: the call in
// flight returns, the plugin is killed after the graceful shutdown's
// deadline.
func TestFaultFrozenPluginAndTheTimeBudget(t *testing.T) {
	p := startProflab(t, "run", scenarioDir(t, busyScenario), "--timeout", "4s")
	stopProcess(t, p.plugin(t))
	code, _ := p.wait(t, 4*time.Second+2*time.Second+3*time.Second)
	if code != ExitFailed {
		t.Errorf("exit code %d, want %d", code, ExitFailed)
	}
	expectOutput(t, p.out.String(), "s.lua:6: scenario exceeded its time budget of 4s (--timeout)")
	noneLeft(t, p.plugins)
}

// Item 1: a frozen plugin and the plugin's call timeout: exit 3.
func TestFaultFrozenPluginAndTheCallTimeout(t *testing.T) {
	p := startProflab(t, "run", scenarioDir(t, busyScenario), "--config-set", `hal.apic.timeout="1s"`)
	pid := p.plugin(t)
	time.Sleep(200 * time.Millisecond)
	stopProcess(t, pid)
	code, _ := p.wait(t, 5*time.Second)
	if code != ExitPlugin {
		t.Errorf("exit code %d, want %d", code, ExitPlugin)
	}
	expectOutput(t, p.out.String(), "the plugin did not answer in time within 1s", "was killed")
	noneLeft(t, p.plugins)
}

// Items 1 and 4: Ctrl-C and SIGTERM end a run stuck on a frozen plugin,
// write its partial results and stop the plugin.
func TestFaultSignalsEndARunStuckOnAFrozenPlugin(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := t.TempDir()
			p := startProflab(t, "run", scenarioDir(t, busyScenario), "--out", out)
			stopProcess(t, p.plugin(t))
			time.Sleep(300 * time.Millisecond)
			sent := time.Now()
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code, _ := p.wait(t, time.Since(p.started)+5*time.Second)
			if took := time.Since(sent); took > 5*time.Second {
				t.Errorf("proflab ended %s after %s", took, sig)
			}
			if code != ExitInterrupted {
				t.Errorf("exit code %d, want %d", code, ExitInterrupted)
			}
			expectOutput(t, p.out.String(), "writing outputs into "+out+"…", "scenario interrupted", "FAIL ")
			b, err := os.ReadFile(filepath.Join(out, "result.json"))
			if err != nil {
				t.Fatalf("no partial result.json: %v", err)
			}
			var r struct{ Status string }
			if err := json.Unmarshal(b, &r); err != nil || r.Status == "" || r.Status == "pass" {
				t.Errorf("result.json status %q (%v), want a failure", r.Status, err)
			}
			noneLeft(t, p.plugins)
		})
	}
}

// Item 2: a plugin killed while the simulator runs without calling it
// fails the run at once with exit 3.
func TestFaultPluginDiesMidRun(t *testing.T) {
	p := startProflab(t, "run", scenarioDir(t, longRunScenario))
	pid := p.plugin(t)
	time.Sleep(500 * time.Millisecond)
	killed := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	code, _ := p.wait(t, time.Since(p.started)+5*time.Second)
	if took := time.Since(killed); took > 5*time.Second {
		t.Errorf("the death was noticed %s later", took)
	}
	if code != ExitPlugin {
		t.Errorf("exit code %d, want %d", code, ExitPlugin)
	}
	expectOutput(t, p.out.String(), "s.lua:6: m:run: hal \"apic\"", "died during the run: the plugin process exited", "signal: killed", "FAIL ")
	noneLeft(t, p.plugins)
}

// Item 3: a plugin whose child keeps its stdout open: start-up ends
// within the start budget, with exit 3, and the child dies with it.
func TestFaultPluginChildHoldsStdout(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "hal-holder")
	pidFile := filepath.Join(dir, "child.pid")
	body := fmt.Sprintf("#!/bin/sh\nsleep 1000 &\necho $! > %s\nwait\n", pidFile)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	src := writeScenario(t, dir, "s.lua", `local lab = require "proflab"
lab.machine{ hal = { "apic" } }`)
	p := startProflab(t, "run", src, "--config-set", fmt.Sprintf("hal.apic.plugin=%q", script), "--config-set", `hal.apic.timeout="1s"`)
	code, _ := p.wait(t, 5*time.Second)
	if code != ExitPlugin {
		t.Errorf("exit code %d, want %d", code, ExitPlugin)
	}
	expectOutput(t, p.out.String(), "did not complete the handshake in time", script)
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	noneLeft(t, map[int]bool{child: true})
}

// runFault runs a scenario in-process with a time budget and returns its
// exit code and output; it fails t if the run takes longer than max.
func runFault(t *testing.T, src string, max time.Duration, args ...string) (int, string) {
	t.Helper()
	file := writeScenario(t, t.TempDir(), "s.lua", src)
	start := time.Now()
	code, out, errOut := runCLI(append([]string{"run", file}, args...)...)
	if took := time.Since(start); took > max {
		t.Errorf("the run took %s, want at most %s", took.Round(time.Millisecond), max)
	}
	noPluginLeft(t)
	return code, out + errOut
}

// noPluginLeft fails t if a plugin process this test process started is
// still running (a second after a command returned).
func noPluginLeft(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		var left []string
		for _, pid := range children(os.Getpid()) {
			if c := cmdline(pid); strings.Contains(c, "proflab-hal-") && processAlive(pid) {
				left = append(left, fmt.Sprintf("%d (%s)", pid, c))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("plugin processes outlived the command: %s", strings.Join(left, ", "))
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
