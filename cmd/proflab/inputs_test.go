package main

// Bounded inputs (issue 20, item 11): every file a person hands proflab is
// read only if it is a regular file and at most its documented size. Each
// case runs proflab as a process of its own (this test binary, re-run as
// proflab) with its address space capped, so that the old behaviour — a
// read of /dev/zero growing without end, a FIFO waiting forever for a
// writer — fails the test rather than the machine.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/halplugins/halrpc"
)

// envInputsMain makes this test binary behave as proflab, its address
// space capped to what it has reserved at start plus 1 GiB; on exit it
// writes its peak resident size (VmHWM, which counts this process image
// only, unlike a wait's rusage that keeps the parent's peak across exec)
// to the file the variable names.
const envInputsMain = "PROFLAB_INPUTS_TEST_MAIN"

func init() {
	if hwm := os.Getenv(envInputsMain); hwm != "" && os.Getenv(halrpc.MagicCookieKey) == "" {
		capAddressSpace(1 << 30)
		code := execute(os.Args[1:], os.Stdout, os.Stderr)
		_ = os.WriteFile(hwm, []byte(strconv.FormatUint(procStatus("VmHWM:"), 10)), 0o644)
		os.Exit(code)
	}
}

// procStatus returns a field of /proc/self/status in bytes (0 if it
// cannot be read).
func procStatus(field string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// capAddressSpace limits this process's address space to its present size
// plus extra bytes, so that a runaway read ends in an out-of-memory crash
// instead of exhausting the machine.
func capAddressSpace(extra uint64) {
	if size := procStatus("VmSize:"); size > 0 {
		lim := size + extra
		_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
	}
}

// runInputs runs proflab with args in dir as a process, kills it after
// max, and returns its exit code, its output and its peak resident size
// in bytes (0 if it did not say).
func runInputs(t *testing.T, dir string, max time.Duration, args ...string) (int, string, int64) {
	t.Helper()
	return runProflabEnv(t, dir, max, nil, args...)
}

// runProflabEnv is runInputs with env added to the process's environment
// (a later entry of a variable wins).
func runProflabEnv(t *testing.T, dir string, max time.Duration, env []string, args ...string) (int, string, int64) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	hwm := filepath.Join(t.TempDir(), "hwm")
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), envInputsMain+"="+hwm), env...) // TestMain set PROFLAB_PLUGIN_PATH
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(max):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("proflab %s: still running after %s (killed); output:\n%s", strings.Join(args, " "), max, out.String())
		return -1, out.String(), 0
	}
	var rss int64
	if b, err := os.ReadFile(hwm); err == nil {
		rss, _ = strconv.ParseInt(string(b), 10, 64)
	}
	return cmd.ProcessState.ExitCode(), out.String(), rss
}

func TestInputsAreRegularFilesOfBoundedSize(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero on this system")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"fifo.lua", "fifo.toml", "mod.lua"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Skipf("cannot make a FIFO here: %v", err)
		}
	}
	// 17 MiB, sparse: over the 16 MiB limit of scenarios and configurations
	for _, name := range []string{"big.lua", "big.toml"} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(17 << 20); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	write("ok.lua", "print(1)\n")
	write("workload.lua", "local lab = require \"proflab\"\nlocal m = lab.machine{}\nm:run{ duration_us = 1000, workload = \"/dev/zero\" }\n")
	write("fifo-workload.lua", "local lab = require \"proflab\"\nlocal m = lab.machine{}\nm:run{ duration_us = 1000, workload = \"fifo.toml\" }\n")
	write("require.lua", "require \"mod\"\n")
	write("zero-scenario.toml", "scenario = \"/dev/zero\"\n")
	write("zero-config.toml", "scenario = \"ok.lua\"\nconfig_file = \"/dev/zero\"\n")
	write("fifo-scenario.toml", "scenario = \"fifo.lua\"\n")
	write("fifo-config.toml", "scenario = \"ok.lua\"\nconfig_file = \"fifo.toml\"\n")
	write("big-config.toml", "scenario = \"ok.lua\"\nconfig_file = \"big.toml\"\n")

	const device, fifo = "it is a character device", "it is a FIFO"
	tooBig := "it is 17 MiB"
	for _, tt := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"run", "/dev/zero"}, ExitUsage, []string{"scenario /dev/zero", device}},
		{[]string{"run", "ok.lua", "--config", "/dev/zero"}, ExitUsage, []string{"--config /dev/zero", device}},
		// a workload outside the scenario's folder is refused unread; in an
		// allowed folder, a device is refused as unreadable: both are bad
		// input (exit 2), as a missing file is
		{[]string{"run", "workload.lua"}, ExitUsage, []string{"workload.lua:3", `workload "/dev/zero": outside the folders a scenario may read workloads from`}},
		{[]string{"run", "workload.lua", "--workload-dir", "/dev"}, ExitUsage, []string{"workload.lua:3", "workload file /dev/zero", device}},
		{[]string{"run", "fifo-workload.lua"}, ExitUsage, []string{"fifo-workload.lua:3", "fifo.toml", fifo}},
		{[]string{"sweep", "--dry-run", "/dev/zero"}, ExitUsage, []string{"sweep file /dev/zero", device}},
		{[]string{"sweep", "--dry-run", "zero-scenario.toml"}, ExitUsage, []string{"zero-scenario.toml", "scenario /dev/zero", device}},
		{[]string{"sweep", "--dry-run", "zero-config.toml"}, ExitUsage, []string{"zero-config.toml", "configuration file /dev/zero", device}},

		{[]string{"run", "fifo.lua"}, ExitUsage, []string{"scenario fifo.lua", fifo}},
		{[]string{"run", "ok.lua", "--config", "fifo.toml"}, ExitUsage, []string{"configuration file fifo.toml", fifo}},
		{[]string{"run", "require.lua"}, 1, []string{"require.lua:1", `require "mod"`, "mod.lua", fifo}},
		{[]string{"sweep", "--dry-run", "fifo.toml"}, ExitUsage, []string{"sweep file fifo.toml", fifo}},
		{[]string{"sweep", "--dry-run", "fifo-scenario.toml"}, ExitUsage, []string{"fifo.lua", fifo}},
		{[]string{"sweep", "--dry-run", "fifo-config.toml"}, ExitUsage, []string{"fifo.toml", fifo}},

		{[]string{"run", "big.lua"}, ExitUsage, []string{"scenario big.lua", tooBig, "16 MiB"}},
		{[]string{"run", "ok.lua", "--config", "big.toml"}, ExitUsage, []string{"configuration file big.toml", tooBig, "16 MiB"}},
		{[]string{"sweep", "--dry-run", "big-config.toml"}, ExitUsage, []string{"big-config.toml", "big.toml", tooBig, "16 MiB"}},
	} {
		code, out, rss := runInputs(t, dir, 30*time.Second, tt.args...)
		if code == -1 {
			continue
		}
		if code != tt.code {
			t.Errorf("proflab %s: exit %d, want %d; output:\n%s", strings.Join(tt.args, " "), code, tt.code, out)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("proflab %s: the output does not say %q:\n%s", strings.Join(tt.args, " "), w, out)
			}
		}
		if rss == 0 || rss > 200<<20 {
			t.Errorf("proflab %s: peak resident size %d MiB, want under 200 MiB", strings.Join(tt.args, " "), rss>>20)
		}
	}
}
