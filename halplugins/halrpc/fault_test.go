package halrpc_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
)

// The fault suite of the plugin layer (issue 13): every call and every
// shutdown has a deadline and a kill, and nothing the plugin started
// outlives it.

// within fails t if f takes longer than max, and returns how long it took.
func within(t *testing.T, max time.Duration, what string, f func()) time.Duration {
	t.Helper()
	start := time.Now()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(max + 20*time.Second):
		t.Fatalf("%s: still running after %s (want at most %s)", what, max+20*time.Second, max)
	}
	took := time.Since(start)
	if took > max {
		t.Errorf("%s took %s, want at most %s", what, took.Round(time.Millisecond), max)
	}
	return took
}

func TestFrozenPluginCallTimesOutAndIsKilled(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin, Timeout: 500 * time.Millisecond})
	in := configured(t, c)
	stop(t, c.Pid())
	var err error
	within(t, 3*time.Second, "a call to a stopped plugin", func() { _, err = in.StartInterrupt([]int{0}, hal.ProfileTime) })
	if !errors.Is(err, halrpc.ErrTimeout) || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("error %v, want ErrTimeout saying the plugin was killed", err)
	}
	waitGone(t, c.Pid())
	within(t, time.Second, "Kill after the timeout", c.Kill)
}

func TestKillOfAStoppedPluginIsBounded(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin})
	configured(t, c)
	stop(t, c.Pid())
	// The graceful shutdown call never returns from a stopped process:
	// Kill must give up on it after ShutdownTimeout and kill the group.
	within(t, halrpc.ShutdownTimeout+3*time.Second, "Kill of a stopped plugin", c.Kill)
	waitGone(t, c.Pid())
}

func TestCancelledCallReturnsAndLeavesThePluginRunning(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin, Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	in := c.NewInstanceContext(ctx)
	if err := in.Configure(machine, nil); err != nil {
		t.Fatal(err)
	}
	stop(t, c.Pid())
	time.AfterFunc(200*time.Millisecond, cancel)
	var err error
	within(t, 2*time.Second, "a cancelled call", func() { _, err = in.StartInterrupt([]int{0}, hal.ProfileTime) })
	if !errors.Is(err, halrpc.ErrCanceled) {
		t.Fatalf("error %v, want ErrCanceled", err)
	}
	if !alive(c.Pid()) {
		t.Fatal("a cancelled call killed the plugin")
	}
	_ = syscall.Kill(c.Pid(), syscall.SIGCONT)
	if err := c.NewInstance().Configure(machine, nil); err != nil {
		t.Fatalf("the plugin does not answer after a cancelled call: %v", err)
	}
}

// A plugin that dies between calls closes Done, and Err says how it
// ended; its pid is in the log, not the error, since errors reach
// results, which must be the same bytes whatever process ran them.
func TestDoneAndErrNoticeADeathBetweenCalls(t *testing.T) {
	var log lockedBuffer
	c := start(t, halrpc.Options{Path: apicPlugin, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err := c.Err(); err != nil {
		t.Fatalf("Err of a running plugin: %v", err)
	}
	if err := syscall.Kill(c.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed 5 s after the plugin was killed")
	}
	err := c.Err()
	if !errors.Is(err, halrpc.ErrExited) || !strings.Contains(err.Error(), "signal: killed") || strings.Contains(err.Error(), strconv.Itoa(c.Pid())) {
		t.Fatalf("Err %v, want ErrExited with the signal and without the pid", err)
	}
	if got := log.String(); !strings.Contains(got, "pid="+strconv.Itoa(c.Pid())) {
		t.Errorf("the log does not name the pid:\n%s", got)
	}

	k := start(t, halrpc.Options{Path: apicPlugin})
	k.Kill()
	select {
	case <-k.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed after Kill")
	}
	if err := k.Err(); err != nil {
		t.Fatalf("Err after Kill: %v, want nil (an expected exit)", err)
	}
}

// stop sends SIGSTOP to pid and waits until it is stopped.
func stop(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return // no /proc: trust the signal
		}
		// The state follows the command name in parentheses.
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "T" {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("process %d did not stop", pid)
}

// grandchildScript writes a shell "plugin" that starts a grandchild
// holding its stdout (no exec) and records the grandchild's pid.
func grandchildScript(t *testing.T, handshake bool) (script, pidFile string) {
	t.Helper()
	dir := t.TempDir()
	script, pidFile = filepath.Join(dir, "hal-grandchild"), filepath.Join(dir, "grandchild.pid")
	body := fmt.Sprintf("#!/bin/sh\nsleep 1000 &\necho $! > %s.tmp && mv %s.tmp %s\n", pidFile, pidFile, pidFile)
	if handshake {
		body += fmt.Sprintf("echo '1|%d|unix|%s|grpc|'\n", halrpc.ProtocolVersion, filepath.Join(dir, "no-such-socket"))
	}
	body += "wait\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, pidFile
}

func grandchildPid(t *testing.T, pidFile string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the script did not record its child's pid in %s", pidFile)
	return 0
}

func TestGrandchildHoldingStdoutDoesNotHangStartUp(t *testing.T) {
	for _, handshake := range []bool{false, true} {
		t.Run(fmt.Sprintf("handshake=%v", handshake), func(t *testing.T) {
			script, pidFile := grandchildScript(t, handshake)
			var c *halrpc.Client
			var err error
			within(t, 4*time.Second, "starting a plugin whose child holds stdout", func() {
				c, err = halrpc.Start(halrpc.Options{Path: script, Timeout: time.Second, StartTimeout: time.Second})
				if err == nil {
					_, err = c.NewInstance().Describe()
					c.Kill()
				}
			})
			if err == nil || !strings.Contains(err.Error(), script) && !errors.Is(err, halrpc.ErrExited) && !errors.Is(err, halrpc.ErrTimeout) {
				t.Fatalf("error %v, want a failure naming the script", err)
			}
			waitGone(t, grandchildPid(t, pidFile))
		})
	}
}

func TestCancelledStartKillsThePlugin(t *testing.T) {
	script, pidFile := grandchildScript(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var err error
	within(t, 2*time.Second, "a cancelled start", func() {
		_, err = halrpc.Start(halrpc.Options{Path: script, Timeout: time.Minute, Context: ctx})
	})
	if !errors.Is(err, halrpc.ErrCanceled) || !strings.Contains(err.Error(), script) {
		t.Fatalf("error %v, want ErrCanceled naming the script", err)
	}
	waitGone(t, grandchildPid(t, pidFile))
}

// reapLater kills pid at the end of the test if it still runs: a child
// the code under test failed to stop must not outlive the test.
func reapLater(t *testing.T, pid int) {
	t.Cleanup(func() {
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// A plugin's child that left its process group (setsid) is stopped with
// the plugin while it is the plugin's: when a start times out (the plugin
// is killed) and when the host kills a plugin that runs (after its
// graceful shutdown, when the child is no longer the plugin's). The
// start's error says what was stopped, not "everything it started"
// (issue 29.21).
func TestDetachedChildIsReaped(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid here")
	}
	t.Run("start timed out", func(t *testing.T) {
		dir := t.TempDir()
		script, pidFile := filepath.Join(dir, "hal-detach"), filepath.Join(dir, "child.pid")
		body := fmt.Sprintf("#!/bin/sh\nsetsid sleep 1000 &\necho $! > %s.tmp && mv %s.tmp %s\nsleep 1000\n", pidFile, pidFile, pidFile)
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		within(t, 4*time.Second, "a start that times out", func() {
			_, err = halrpc.Start(halrpc.Options{Path: script, StartTimeout: time.Second})
		})
		child := grandchildPid(t, pidFile)
		reapLater(t, child)
		if err == nil || strings.Contains(err.Error(), "everything it started") || !strings.Contains(err.Error(), "process group") {
			t.Errorf("error %v, want one saying what was stopped", err)
		}
		waitGone(t, child)
	})
	t.Run("killed", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "child.pid")
		c := start(t, halrpc.Options{Path: testPlugin, Args: []string{"-mode", "detach", "-pidfile", pidFile}})
		child := grandchildPid(t, pidFile)
		reapLater(t, child)
		if !alive(child) {
			t.Fatal("the detached child is not running: the test would prove nothing")
		}
		c.Kill()
		waitGone(t, child)
	})
}

// A HAL's panic reaches the host as its call's error, saying what
// panicked; the goroutine dump (ids and addresses that differ in every
// process) goes to the log, not into the error, which ends up in a run's
// results (issue 29.8).
func TestPanicStackGoesToTheLog(t *testing.T) {
	var log lockedBuffer
	c := start(t, halrpc.Options{Path: testPlugin, Args: []string{"-mode", "nodescribe"}, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	in := c.NewInstance()
	err := in.Configure(machine, nil)
	if err == nil {
		_, err = in.Describe()
	}
	if err == nil || !strings.Contains(err.Error(), "the HAL panicked: testplugin: no description, as asked") || strings.Contains(err.Error(), "goroutine") {
		t.Fatalf("error %q, want what panicked and no stack", err)
	}
	if got := log.String(); !strings.Contains(got, "the plugin's HAL panicked") || !strings.Contains(got, "goroutine") {
		t.Errorf("the stack is not in the log:\n%s", got)
	}
}
