package halrpc_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
	"github.com/proflab/proflab/halplugins/halrpc/halrpctest"
	"github.com/proflab/proflab/halplugins/haltest"
)

// The test executable itself, linked under the plugins' names by
// TestMain (halrpctest): no plugin is built.
var (
	apicPlugin string
	testPlugin string
)

func TestMain(m *testing.M) {
	halrpctest.ServeIfPlugin()
	if os.Getenv("HALRPC_TEST_ORPHAN_PARENT") != "" {
		orphanParent()
		return
	}
	dir, err := os.MkdirTemp("", "halrpc-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		paths, err := halrpctest.Install(dir, "proflab-hal-apic", halrpctest.Faulty)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		apicPlugin, testPlugin = paths[0], paths[1]
		return m.Run()
	}()
	os.Exit(code)
}

var machine = hal.Machine{CPUs: 4, FreqMHz: 3000, Vendor: hal.VendorIntel, Arch: "x64", Version: "10.0.19041", Seed: 1}

func start(t testing.TB, opts halrpc.Options) *halrpc.Client {
	t.Helper()
	c, err := halrpc.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Kill)
	return c
}

func TestRoundTripMatchesInProcess(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin})
	remote, local := c.NewInstance(), hal.Local(apic.New)
	settings := []byte(`{"max": 5000000}`)
	for _, in := range []hal.Instance{remote, local} {
		if err := in.Configure(machine, settings); err != nil {
			t.Fatal(err)
		}
	}
	type answer struct {
		d    hal.Description
		q    []hal.SourceInfo
		eff  []uint32
		ps   []hal.Programming
		errs []error
	}
	run := func(in hal.Instance) answer {
		var a answer
		var err error
		a.d, err = in.Describe()
		a.errs = append(a.errs, err)
		_, err = in.StartInterrupt([]int{1, 2}, hal.ProfileTime)
		a.errs = append(a.errs, err)
		var p hal.Programming
		a.eff, p, err = in.SetInterval([]int{0, 1, 2, 3}, hal.ProfileTime, 9_000_000)
		a.ps = append(a.ps, p)
		a.errs = append(a.errs, err)
		a.q, err = in.QuerySource([]int{0, 3}, hal.ProfileTime)
		a.errs = append(a.errs, err)
		p, err = in.StopInterrupt([]int{2}, hal.ProfileTime)
		a.ps = append(a.ps, p)
		a.errs = append(a.errs, err)
		p, err = in.Reset()
		a.ps = append(a.ps, p)
		a.errs = append(a.errs, err)
		return a
	}
	r, l := run(remote), run(local)
	if err := errors.Join(r.errs...); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%+v", r), fmt.Sprintf("%+v", l); got != want {
		t.Errorf("plugin and in-process answers differ:\nplugin:  %s\ninproc:  %s", got, want)
	}
	if r.eff[0] != 5_000_000 {
		t.Errorf("set 9,000,000 with max 5,000,000: effective %d", r.eff[0])
	}
	if len(r.ps[0].Timers) != 2 || r.ps[0].Timers[0].CPU != 1 || r.ps[0].Timers[0].Period != 5_000_000 {
		t.Errorf("set while started on 1 and 2 programmed %+v", r.ps[0].Timers)
	}
}

// HalQueryProfileNumberOfCounters crosses the boundary; a plugin that
// answers UNIMPLEMENTED (built before the call existed) reports 0.
func TestNumberOfCounters(t *testing.T) {
	for mode, want := range map[string]uint32{"counters": 6, "ok": 0, "old": 0} {
		c := start(t, halrpc.Options{Path: testPlugin, Args: []string{"-mode", mode}})
		in := c.NewInstance()
		if err := in.Configure(machine, nil); err != nil {
			t.Fatal(err)
		}
		if n, err := in.NumberOfCounters(); n != want || err != nil {
			t.Errorf("mode %s: %d, %v, want %d", mode, n, err, want)
		}
	}
}

// Opening an instance is one round trip: configure answers for the
// Describe and Abilities that follow it. Where the plugin cannot describe
// itself, Describe asks it, and its error is that call's.
func TestConfigureAnswersDescribeAndAbilities(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin})
	in := c.NewInstance()
	if err := in.Configure(machine, nil); err != nil {
		t.Fatal(err)
	}
	d, err := in.Describe()
	if err != nil || len(d.Sources) == 0 || d.Name != "apic" {
		t.Fatalf("describe: %+v, %v", d, err)
	}
	if _, err := in.Abilities(); err != nil {
		t.Fatal(err)
	}
	if n := c.RoundTrips(); n != 1 {
		t.Errorf("configure, describe and abilities took %d round trips, want 1", n)
	}
	again, err := in.Describe()
	if err != nil || fmt.Sprint(again) != fmt.Sprint(d) {
		t.Errorf("a later describe: %+v, %v; want the first answer %+v", again, err, d)
	}
	if n := c.RoundTrips(); n != 2 {
		t.Errorf("a later describe is asked of the plugin: %d round trips, want 2", n)
	}

	bad := start(t, halrpc.Options{Path: testPlugin, Args: []string{"-mode", "nodescribe"}})
	in = bad.NewInstance()
	if err := in.Configure(machine, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Describe(); err == nil || !strings.Contains(err.Error(), "no description, as asked") {
		t.Errorf("describe of a HAL that cannot describe itself: %v", err)
	}
	if n := bad.RoundTrips(); n != 2 {
		t.Errorf("configure then a failing describe: %d round trips, want 2", n)
	}
}

// An instance is released in the plugin even when the run that used it
// has ended: a run's context is cancelled before its HALs are closed, and
// a close bound by it was never sent, so a warm plugin kept an instance
// per run for the whole sweep.
func TestCloseAfterTheRunEnded(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin})
	ctx, cancel := context.WithCancel(context.Background())
	in := c.NewInstanceContext(ctx)
	if err := in.Configure(machine, nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := in.QuerySource([]int{0}, hal.ProfileTime); !errors.Is(err, halrpc.ErrCanceled) {
		t.Errorf("a call after the run ended: %v, want ErrCanceled", err)
	}
	if err := in.Close(); err != nil {
		t.Fatalf("close after the run ended: %v", err)
	}
	if n := c.RoundTrips(); n != 2 {
		t.Errorf("configure then close: %d round trips, want 2 (the close sent)", n)
	}
}

// A plugin built before the Session stream answers it UNIMPLEMENTED: the
// host learns so from its first call and makes every call, that one
// included, as a unary RPC; the whole contract holds across it.
func TestConformanceOfAUnaryOnlyPlugin(t *testing.T) {
	c := start(t, halrpc.Options{Path: testPlugin, Args: []string{"-mode", "unary"}})
	for _, r := range haltest.Check(func() (hal.Instance, error) { return c.NewInstance(), nil }) {
		if r.Err != nil {
			t.Errorf("%s on %s: %v", r.Check, r.Machine, r.Err)
		}
	}
	// Through a pipeline, a start is then waited for, as before.
	p := halrpc.NewPipeline()
	in := c.NewInstanceIn(context.Background(), p)
	if err := in.Configure(machine, nil); err != nil {
		t.Fatal(err)
	}
	later, ok := in.(halrpc.Pipelined)
	if !ok {
		t.Fatal("a plugin instance cannot send a start without waiting")
	}
	answered := false
	if err := later.StartInterruptLater([]int{0}, hal.ProfileTime, func(p hal.Programming, err error) error {
		answered = err == nil && len(p.Timers) == 1
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !answered || p.Pending() != 0 {
		t.Errorf("a unary plugin's start: answered %v, %d pending; want it answered at once", answered, p.Pending())
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
}

// On a plugin that serves Session, a start sent through a pipeline is
// answered when the pipeline settles, not before; a close is sent without
// waiting, so a frozen plugin does not hold the host's teardown.
func TestPipelinedCalls(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin})
	p := halrpc.NewPipeline()
	in := c.NewInstanceIn(context.Background(), p)
	if err := in.Configure(machine, nil); err != nil {
		t.Fatal(err)
	}
	later := in.(halrpc.Pipelined)
	var order []string
	for _, cpu := range []int{2, 0} {
		if err := later.StartInterruptLater([]int{cpu}, hal.ProfileTime, func(p hal.Programming, err error) error {
			if err != nil {
				return err
			}
			order = append(order, fmt.Sprint(p.Timers[0].CPU))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(order) != 0 || p.Pending() != 2 {
		t.Fatalf("before the settle: %v answered, %d pending; want none answered, 2 pending", order, p.Pending())
	}
	if err := p.Settle(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, ",") != "2,0" {
		t.Errorf("answers handed over in the order %v, want 2,0", order)
	}
	if err := syscall.Kill(c.Pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(c.Pid(), syscall.SIGCONT)
	begin := time.Now()
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > 500*time.Millisecond {
		t.Errorf("closing an instance of a frozen plugin took %s: the close was waited for", took)
	}
}

// A script that starts and stops a source many times without a call that
// needs an answer keeps at most MaxPipelined answers unread, and every
// answer still reaches its callback, in order.
func TestPipelineIsBounded(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin})
	p := halrpc.NewPipeline()
	in := c.NewInstanceIn(context.Background(), p)
	if err := in.Configure(machine, nil); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	later := in.(halrpc.Pipelined)
	var enabled []bool
	record := func(p hal.Programming, err error) error {
		if err != nil {
			return err
		}
		enabled = append(enabled, p.Timers[0].Enabled)
		return nil
	}
	most := 0
	for i := 0; i < 2000; i++ {
		send := later.StartInterruptLater
		if i%2 == 1 {
			send = later.StopInterruptLater
		}
		if err := send([]int{1}, hal.ProfileTime, record); err != nil {
			t.Fatal(err)
		}
		most = max(most, p.Pending())
	}
	if err := p.Settle(); err != nil {
		t.Fatal(err)
	}
	if most > halrpc.MaxPipelined {
		t.Errorf("%d answers unread at once, want at most %d", most, halrpc.MaxPipelined)
	}
	if len(enabled) != 2000 {
		t.Fatalf("%d answers handed over, want 2000", len(enabled))
	}
	for i, e := range enabled {
		if e != (i%2 == 0) {
			t.Fatalf("answer %d: timer enabled %v, want %v (out of order)", i, e, i%2 == 0)
		}
	}
}

func TestConformanceAcrossProcessBoundary(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin})
	for _, r := range haltest.Check(func() (hal.Instance, error) { return c.NewInstance(), nil }) {
		if r.Err != nil {
			t.Errorf("%s on %s: %v", r.Check, r.Machine, r.Err)
		}
	}
}

func TestSettingsErrorsCrossTheBoundary(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin})
	for settings, want := range map[string]string{
		`{"nope": 1}`:              `unknown setting "nope"`,
		`{"min": "fast"}`:          `setting "min": got a string, want uint32`,
		`{"min": 9, "default": 1}`: "min <= default <= max",
	} {
		err := c.NewInstance().Configure(machine, []byte(settings))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("settings %s: error %v, want one containing %q", settings, err, want)
		}
	}
}

func TestProtocolMismatch(t *testing.T) {
	_, err := halrpc.Start(halrpc.Options{Path: testPlugin, Args: []string{"-protocol", "2"}})
	if !errors.Is(err, halrpc.ErrProtocol) {
		t.Fatalf("error %v, want ErrProtocol", err)
	}
	for _, want := range []string{testPlugin, "protocol 1", "rebuild"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestNotAPlugin(t *testing.T) {
	script := filepath.Join(t.TempDir(), "not-a-plugin")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho hello\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := halrpc.Start(halrpc.Options{Path: script, Timeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), script) {
		t.Fatalf("error %v, want one naming %s", err, script)
	}
}

// A script plugin whose interpreter is missing, or not executable, is
// reported by the plugin's file and its interpreter, not by the
// descriptor it was executed as (issue 36 item 11).
func TestScriptPluginWithoutItsInterpreter(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "python-not-executable")
	if err := os.WriteFile(notExec, []byte("not a program\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		interp string
		want   []string
	}{
		{"/nonexistent/python9", []string{"its interpreter /nonexistent/python9 (its #! line) does not exist"}},
		{notExec + " -u", []string{"its interpreter " + notExec + " (its #! line) is not an executable file"}},
	} {
		script := filepath.Join(dir, "plugin.py")
		if err := os.WriteFile(script, []byte("#!"+tt.interp+"\nprint('hello')\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := halrpc.Start(halrpc.Options{Path: script, Timeout: 2 * time.Second})
		if err == nil {
			t.Fatalf("#!%s: started", tt.interp)
		}
		for _, want := range append(tt.want, "plugin "+script+": could not start") {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("#!%s: error %q does not say %q", tt.interp, err, want)
			}
		}
		if strings.Contains(err.Error(), "/proc/self/fd") || strings.Contains(err.Error(), "proflab-plugin-") {
			t.Errorf("#!%s: error %q names the descriptor or copy it was executed as", tt.interp, err)
		}
	}
}

func TestChecksum(t *testing.T) {
	t.Parallel()
	sum, err := halrpc.FileSHA256(apicPlugin)
	if err != nil {
		t.Fatal(err)
	}
	if c := start(t, halrpc.Options{Path: apicPlugin, SHA256: sum}); c.SHA256() != sum {
		t.Errorf("Client.SHA256 %s, want the file's %s", c.SHA256(), sum)
	}
	if c := start(t, halrpc.Options{Path: apicPlugin}); c.SHA256() != sum {
		t.Errorf("unpinned: Client.SHA256 %s, want the file's %s", c.SHA256(), sum)
	}
	wrong := strings.Repeat("0", 64)
	_, err = halrpc.Start(halrpc.Options{Path: apicPlugin, SHA256: wrong})
	if !errors.Is(err, halrpc.ErrChecksum) || !strings.Contains(err.Error(), sum) {
		t.Fatalf("error %v, want ErrChecksum naming the file's sum %s", err, sum)
	}
	if _, err := halrpc.Start(halrpc.Options{Path: apicPlugin, SHA256: "xyz"}); err == nil || !strings.Contains(err.Error(), "64 hex digits") {
		t.Fatalf("malformed sha256: error %v", err)
	}
}

// The sha256 pin holds against a path swapped while plugins start: each
// start opens the executable once, hashes that open file and executes
// it, so a start either runs exactly the pinned bytes (the running
// process's /proc/PID/exe hashes to the pin, and Client.SHA256 says so)
// or is refused with ErrChecksum — never runs the other file (issue
// 29.11). Before, the pin was checked on the path and the path executed:
// a symbolic link swapped in between ran the unpinned file.
func TestPinHoldsAgainstASwappedPath(t *testing.T) {
	dir := t.TempDir()
	pinned, err := filepath.EvalSymlinks(apicPlugin)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := halrpc.FileSHA256(pinned)
	if err != nil {
		t.Fatal(err)
	}
	// another program that serves the same HAL: the test binary with a
	// byte more
	b, err := os.ReadFile(pinned)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, append(b, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "proflab-hal-apic") // the name the test binary serves apic under
	if err := os.Symlink(pinned, link); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	flipped := make(chan struct{})
	go func() { // swap the link back and forth until told to stop
		defer close(flipped)
		tmp := filepath.Join(dir, "next")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			target := pinned
			if i%2 == 1 {
				target = other
			}
			os.Remove(tmp)
			if os.Symlink(target, tmp) == nil {
				os.Rename(tmp, link)
			}
			time.Sleep(50 * time.Microsecond)
		}
	}()
	ran, refused := 0, 0
	for try := 0; ran < 10 && try < 1000; try++ { // a refused start costs little
		c, err := halrpc.Start(halrpc.Options{Path: link, SHA256: sum})
		if errors.Is(err, halrpc.ErrChecksum) {
			refused++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		ran++
		got, herr := halrpc.FileSHA256(fmt.Sprintf("/proc/%d/exe", c.Pid()))
		c.Kill()
		if herr != nil {
			t.Skipf("no /proc/PID/exe here: %v", herr)
		}
		if got != sum || c.SHA256() != sum {
			t.Errorf("a start pinned to %.12s ran %.12s (Client.SHA256 %.12s)", sum, got, c.SHA256())
		}
	}
	close(stop)
	<-flipped
	t.Logf("%d starts ran the pinned file, %d were refused", ran, refused)
	if ran == 0 {
		t.Error("no start ran: the test proved nothing")
	}
}

func configured(t *testing.T, c *halrpc.Client) hal.Instance {
	t.Helper()
	in := c.NewInstance()
	if err := in.Configure(machine, nil); err != nil {
		t.Fatal(err)
	}
	return in
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("plugin process %d is still running", pid)
}

// alive reports whether pid runs (a zombie counts as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) < 3 || f[2] != "Z"
}

func TestCrashMidCall(t *testing.T) {
	c := start(t, halrpc.Options{Path: testPlugin, Args: []string{"-mode", "crash"}})
	in := configured(t, c)
	_, err := in.StartInterrupt([]int{0}, hal.ProfileTime)
	if !errors.Is(err, halrpc.ErrExited) || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("error %v, want ErrExited with the exit status (the log names the call: with calls in flight, which one finds the process gone depends on timing)", err)
	}
	waitGone(t, c.Pid())
	if _, err := in.QuerySource([]int{0}, hal.ProfileTime); !errors.Is(err, halrpc.ErrExited) {
		t.Fatalf("call after the crash: %v, want ErrExited", err)
	}
}

func TestHang(t *testing.T) {
	t.Parallel()
	c := start(t, halrpc.Options{Path: testPlugin, Args: []string{"-mode", "hang"}, Timeout: 300 * time.Millisecond, StartTimeout: 10 * time.Second})
	in := configured(t, c)
	_, err := in.StartInterrupt([]int{0}, hal.ProfileTime)
	if !errors.Is(err, halrpc.ErrTimeout) || !strings.Contains(err.Error(), "300ms") {
		t.Fatalf("error %v, want ErrTimeout naming the timeout", err)
	}
	waitGone(t, c.Pid())
}

func TestKillLeavesNoProcess(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin})
	pid := c.Pid()
	if pid <= 0 || !alive(pid) {
		t.Fatalf("plugin pid %d not running", pid)
	}
	c.Kill()
	c.Kill()
	waitGone(t, pid)
}

// orphanParent is the body of a helper process: it starts the apic plugin,
// prints its pid and waits to be killed.
func orphanParent() {
	c, err := halrpc.Start(halrpc.Options{Path: os.Getenv("HALRPC_TEST_ORPHAN_PARENT")})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(c.Pid())
	time.Sleep(time.Minute)
}

func TestPluginDiesWithItsParent(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "HALRPC_TEST_ORPHAN_PARENT="+apicPlugin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("helper said %q", buf[:n])
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to clean up
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, pid)
}

func BenchmarkRoundTrip(b *testing.B) {
	c := start(b, halrpc.Options{Path: apicPlugin})
	for name, in := range map[string]hal.Instance{"plugin": c.NewInstance(), "inproc": hal.Local(apic.New)} {
		if err := in.Configure(machine, nil); err != nil {
			b.Fatal(err)
		}
		cpus := []int{0, 1, 2, 3}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := in.StartInterrupt(cpus, hal.ProfileTime); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Each configured instance holds a Session stream of its own until it is
// closed: a scenario that keeps thousands of machines open must not meet
// a limit on the streams of one connection (HTTP/2's concurrent streams).
func TestThousandsOfOpenInstances(t *testing.T) {
	c := start(t, halrpc.Options{Path: apicPlugin, Timeout: 5 * time.Second})
	var ins []hal.Instance
	for i := range 2000 {
		in := c.NewInstance()
		if err := in.Configure(machine, nil); err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		ins = append(ins, in)
	}
	for _, in := range ins {
		if _, err := in.QuerySource([]int{0}, hal.ProfileTime); err != nil {
			t.Fatal(err)
		}
		if err := in.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for the logger's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A plugin's plain stderr lines reach the host's logger (the run log) at
// Info: go-plugin hands them over at Debug, below what a run log shows.
func TestPluginStderrReachesTheLog(t *testing.T) {
	var log lockedBuffer
	c := start(t, halrpc.Options{Path: testPlugin, Args: []string{"-mode", "chatty"},
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if _, err := c.NewInstance().Abilities(); err != nil && !errors.Is(err, hal.ErrUnsupported) {
		t.Log(err) // any call: the start-up line is long read by then
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(log.String(), "testplugin: a plain line on stderr") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := log.String(); !strings.Contains(got, "level=INFO") || !strings.Contains(got, "testplugin: a plain line on stderr") {
		t.Errorf("the plugin's stderr line is not in the log:\n%s", got)
	}
}
