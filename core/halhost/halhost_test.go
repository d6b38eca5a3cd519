package halhost_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
	"github.com/proflab/proflab/halplugins/halrpc/halrpctest"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// pluginDir holds the shipped plugins and the misbehaving test plugin
// (as hal-crash, hal-hang, hal-nonsense): the test executable itself,
// linked under their names by TestMain (halrpctest), so nothing is built.
var pluginDir string

func TestMain(m *testing.M) {
	halrpctest.ServeIfPlugin()
	dir, err := os.MkdirTemp("", "halhost-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pluginDir = dir
	code := func() int {
		defer os.RemoveAll(dir)
		if _, err := halrpctest.Install(dir, "proflab-hal-apic", "proflab-hal-pmu", "proflab-hal-pebs", halrpctest.Faulty,
			halrpctest.FaultyAs("crash"), halrpctest.FaultyAs("hang"), halrpctest.FaultyAs("nonsense"),
			halrpctest.FaultyAs("seeded"), halrpctest.FaultyAs("unary")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

var machine = hal.Machine{CPUs: 4, FreqMHz: 3000, Vendor: hal.VendorIntel, Arch: "x64", Version: "10.0.19041", Seed: 1}

// newHost returns a host over the default config plus extra TOML, finding
// plugins in pluginDir only.
func newHost(t testing.TB, extra string) *halhost.Host {
	t.Helper()
	c := config.Default()
	if extra != "" {
		if err := c.Merge("test.toml", []byte(extra)); err != nil {
			t.Fatal(err)
		}
	}
	h := halhost.New(c.HAL, halhost.Options{Search: &halhost.Search{PluginPath: pluginDir}})
	t.Cleanup(h.Close)
	return h
}

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

func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	t.Fatalf("plugin process %d is still running", pid)
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	mk := func(dir, name string, mode os.FileMode) string {
		d := filepath.Join(root, dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exe := mk("exe", "both", 0o755)
	pp := mk("pp", "both", 0o755)
	pp2 := mk("pp2", "pp-only", 0o755)
	path := mk("path", "path-only", 0o755)
	mk("pp", "noexec", 0o644)
	s := halhost.Search{
		ExeDir:     filepath.Join(root, "exe"),
		PluginPath: filepath.Join(root, "pp") + string(os.PathListSeparator) + filepath.Join(root, "pp2"),
		Path:       filepath.Join(root, "path"),
	}
	tests := []struct {
		plugin, want, err string
	}{
		{"both", exe, ""},
		{"pp-only", pp2, ""},
		{"path-only", path, ""},
		{pp, pp, ""},
		{"missing", "", "make build"},
		{"noexec", "", "not found"},
		{filepath.Join(root, "pp", "noexec"), "", "not executable"},
		{filepath.Join(root, "nowhere", "x"), "", "not found"},
	}
	// a folder listed twice (PATH often repeats) is looked in, and named, once
	dup := s
	dup.Path = s.Path + string(os.PathListSeparator) + s.Path
	if _, err := dup.Find("missing"); err == nil || strings.Count(err.Error(), filepath.Join(root, "path")+" (PATH)") != 1 {
		t.Errorf("a repeated PATH folder is listed more than once: %v", err)
	}
	for _, tt := range tests {
		got, err := s.Find(tt.plugin)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Find(%q) = %q, %v; want error containing %q", tt.plugin, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Find(%q) = %q, %v; want %q", tt.plugin, got, err, tt.want)
		}
	}
	_, err := s.Find("missing")
	for _, dir := range []string{"exe (beside proflab)", "pp (PROFLAB_PLUGIN_PATH)", "path (PATH)"} {
		if !strings.Contains(err.Error(), dir) {
			t.Errorf("missing-plugin error %q does not list %q", err, dir)
		}
	}
}

// session drives a machine's HALs as the kernel would for one profile.
func session(t testing.TB, hals []*halhost.MachineHAL) {
	t.Helper()
	all := []int{0, 1, 2, 3}
	var owner = map[nt.Source]kernel.HALDispatch{}
	for _, h := range hals {
		for _, s := range h.Sources() {
			if _, ok := owner[s.Source]; !ok {
				owner[s.Source] = h
			}
		}
	}
	for _, src := range []nt.Source{nt.ProfileTime, nt.ProfileTotalIssues, nt.ProfileCacheMisses} {
		h := owner[src]
		if h == nil {
			t.Fatalf("no HAL owns %s", src)
		}
		if _, err := h.QuerySource(all, src); err != nil {
			t.Fatal(err)
		}
		if _, err := h.SetInterval(all, src, 5000); err != nil {
			t.Fatal(err)
		}
		if err := h.StartInterrupt(all, src); err != nil {
			t.Fatal(err)
		}
		if err := h.StopInterrupt(all[1:], src); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range hals {
		if err := h.Reset(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPluginAndInprocProgramTheSame(t *testing.T) {
	var recs [2]halhost.Recorder
	for i, extra := range []string{"", `
[hal.apic]
transport = "inproc"
[hal.pmu]
transport = "inproc"
[hal.pebs]
transport = "inproc"
`} {
		h := newHost(t, extra)
		hals, err := h.OpenMachine([]string{"apic", "pmu", "pebs"}, machine, &recs[i])
		if err != nil {
			t.Fatal(err)
		}
		session(t, hals)
	}
	a, b := recs[0].Applied(), recs[1].Applied()
	if len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Fatalf("plugin and inproc programming differ:\nplugin: %+v\ninproc: %+v", a, b)
	}
	// ProfileTime: apic programs periodic timers at the clamped interval.
	first := a[0].Programming // the set before the start programs nothing
	if a[0].HAL != "apic" || len(first.Timers) != 4 || first.Timers[3].Period != 5000 || !first.Timers[3].Enabled {
		t.Errorf("apic start programmed %+v", a[0])
	}
}

func TestProcessesAreReusedAcrossMachines(t *testing.T) {
	h := newHost(t, "")
	for i := 0; i < 3; i++ {
		hals, err := h.OpenMachine([]string{"apic", "pmu"}, machine, nil)
		if err != nil {
			t.Fatal(err)
		}
		session(t, hals)
		for _, mh := range hals {
			mh.Close()
		}
	}
	if got := len(h.Pids()); got != 2 {
		t.Fatalf("%d plugin processes after three machines, want 2", got)
	}
}

func TestSettingsReachThePlugin(t *testing.T) {
	h := newHost(t, "[hal.apic.settings]\nmax = 100000\n")
	mh, err := h.Open("apic", machine, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := mh.Sources()[0].Bounds.Max; got != 100000 {
		t.Fatalf("max %d", got)
	}
	h = newHost(t, "[hal.pmu.settings]\ncountrs = 2\n")
	_, err = h.Open("pmu", machine, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown setting "countrs"`) || !strings.Contains(err.Error(), `hal "pmu"`) {
		t.Fatalf("error %v", err)
	}
}

func TestMissingPlugin(t *testing.T) {
	h := newHost(t, "[hal.gone]\nplugin = \"proflab-hal-gone\"\n")
	_, err := h.Open("gone", machine, nil)
	if err == nil || !strings.Contains(err.Error(), "make build") || !strings.Contains(err.Error(), pluginDir) {
		t.Fatalf("error %v", err)
	}
	if _, err := h.Open("nope", machine, nil); err == nil || !strings.Contains(err.Error(), "[hal.nope]") {
		t.Fatalf("unconfigured HAL: %v", err)
	}
}

func TestChecksum(t *testing.T) {
	t.Parallel()
	sum, err := halrpc.FileSHA256(filepath.Join(pluginDir, "proflab-hal-apic"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newHost(t, fmt.Sprintf("[hal.apic]\nsha256 = %q\n", sum)).Open("apic", machine, nil); err != nil {
		t.Fatal(err)
	}
	_, err = newHost(t, fmt.Sprintf("[hal.apic]\nsha256 = %q\n", strings.Repeat("ab", 32))).Open("apic", machine, nil)
	if !errors.Is(err, halrpc.ErrChecksum) || !strings.Contains(err.Error(), `hal "apic"`) {
		t.Fatalf("error %v", err)
	}
}

func TestCrashFailsThatRunOnly(t *testing.T) {
	t.Parallel()
	h := newHost(t, "[hal.crash]\nplugin = \"hal-crash\"\n")
	mh, err := h.Open("crash", machine, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := h.Pids()["crash"]
	err = mh.StartInterrupt([]int{0, 1}, nt.ProfileTime)
	if !errors.Is(err, halrpc.ErrExited) || !strings.Contains(err.Error(), `hal "crash"`) || !strings.Contains(err.Error(), "died during the run") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("error %v", err)
	}
	if _, err := mh.QuerySource([]int{0}, nt.ProfileTime); err == nil || !strings.Contains(err.Error(), "failed earlier") {
		t.Fatalf("call after the crash: %v", err)
	}
	waitGone(t, pid)
	// The next run gets a fresh process.
	mh2, err := h.Open("crash", machine, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mh2.QuerySource([]int{0}, nt.ProfileTime); err != nil {
		t.Fatal(err)
	}
	if h.Pids()["crash"] == pid {
		t.Fatal("the crashed process was reused")
	}
}

func TestHangTimesOut(t *testing.T) {
	t.Parallel()
	h := newHost(t, "[hal.hang]\nplugin = \"hal-hang\"\ntimeout = \"300ms\"\n")
	mh, err := h.Open("hang", machine, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := h.Pids()["hang"]
	start := time.Now()
	err = mh.StartInterrupt([]int{0}, nt.ProfileTime)
	if !errors.Is(err, halrpc.ErrTimeout) || !strings.Contains(err.Error(), `hal "hang"`) {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeout took %s", d)
	}
	waitGone(t, pid)
}

func TestNonsenseAnswers(t *testing.T) {
	h := newHost(t, "[hal.nonsense]\nplugin = \"hal-nonsense\"\n")
	mh, err := h.Open("nonsense", machine, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mh.QuerySource([]int{0, 1}, nt.ProfileTime); err == nil || !strings.Contains(err.Error(), "nonsense answer: 3 entries for 2 processors") {
		t.Fatalf("query: %v", err)
	}
	mh, _ = h.Open("nonsense", machine, nil)
	if err := mh.StartInterrupt([]int{0}, nt.ProfileTime); err == nil || !strings.Contains(err.Error(), "processor 63 of a 4-processor machine") {
		t.Fatalf("start: %v", err)
	}
}

func TestCloseKillsEveryPlugin(t *testing.T) {
	t.Parallel()
	h := newHost(t, "")
	if _, err := h.OpenMachine([]string{"apic", "pmu", "pebs"}, machine, nil); err != nil {
		t.Fatal(err)
	}
	pids := h.Pids()
	if len(pids) != 3 {
		t.Fatalf("pids %v", pids)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.CloseWhenDone(ctx)
	cancel() // as Ctrl-C would
	for _, pid := range pids {
		waitGone(t, pid)
	}
	if _, err := h.Open("apic", machine, nil); !errors.Is(err, halhost.ErrClosed) {
		t.Fatalf("open after close: %v", err)
	}
}

func TestInprocRejectsUnknownPlugins(t *testing.T) {
	h := newHost(t, "[hal.mine]\nplugin = \"/x/mine\"\ntransport = \"inproc\"\n")
	if _, err := h.Open("mine", machine, nil); err == nil || !strings.Contains(err.Error(), "only the shipped HALs") {
		t.Fatalf("error %v", err)
	}
}

// BenchmarkRunTraffic measures one run's HAL traffic on a 4-processor
// machine with apic, pmu and pebs — open, query/set/start/stop of three
// sources, reset — through plugin processes and in-process, and reports
// the calls per run. (The whole-run ratio with the simulated hardware
// needs the simulator; see docs/hal-plugins.md.)
func BenchmarkRunTraffic(b *testing.B) {
	for _, mode := range []string{"plugin", "inproc"} {
		b.Run(mode, func(b *testing.B) {
			extra := ""
			if mode == "inproc" {
				extra = "[hal.apic]\ntransport = \"inproc\"\n[hal.pmu]\ntransport = \"inproc\"\n[hal.pebs]\ntransport = \"inproc\"\n"
			}
			h := newHost(b, extra)
			var calls int64
			for b.Loop() {
				hals, err := h.OpenMachine([]string{"apic", "pmu", "pebs"}, machine, halhost.Discard{})
				if err != nil {
					b.Fatal(err)
				}
				session(b, hals)
				for _, mh := range hals {
					mh.Close()
					calls += mh.Calls() // configure, describe and abilities to close
				}
			}
			b.ReportMetric(float64(calls)/float64(b.N), "calls/run")
		})
	}
}

// Calls counts every call of an instance's life for the machine.
func TestMachineHALCalls(t *testing.T) {
	h := halhost.New(map[string]config.HAL{"apic": {Plugin: "proflab-hal-apic", Transport: config.TransportInproc}}, halhost.Options{})
	defer h.Close()
	mh, err := h.Open("apic", hal.Machine{CPUs: 2, FreqMHz: 3000, Vendor: nt.VendorIntel, Arch: "x64", Version: "10.0.19041", Seed: 1}, halhost.Discard{})
	if err != nil {
		t.Fatal(err)
	}
	if got := mh.Calls(); got != 3 {
		t.Fatalf("after open: %d calls, want configure, describe and abilities", got)
	}
	if _, err := mh.QuerySource([]int{0, 1}, nt.ProfileTime); err != nil {
		t.Fatal(err)
	}
	mh.Close()
	if got := mh.Calls(); got != 5 {
		t.Fatalf("after a query and close: %d calls, want 5", got)
	}
}

// Through plugins, opening a machine's HALs is one round trip each (the
// configure call answers for describe and abilities), a query one more,
// and closing them one each; Host.RoundTrips counts what crossed.
func TestPluginRoundTrips(t *testing.T) {
	h := newHost(t, "")
	names := []string{"apic", "pmu", "pebs"}
	hals, err := h.OpenMachine(names, machine, halhost.Discard{})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.RoundTrips(); got != int64(len(names)) {
		t.Errorf("opening %d HALs took %d round trips, want one each", len(names), got)
	}
	if got := hals[0].Calls(); got != 3 {
		t.Errorf("apic answered %d calls, want configure, describe and abilities", got)
	}
	if _, err := hals[0].QuerySource([]int{0, 1}, nt.ProfileTime); err != nil {
		t.Fatal(err)
	}
	halhost.CloseMachine(hals)
	if got, want := h.RoundTrips(), int64(2*len(names)+1); got != want {
		t.Errorf("open, one query, close: %d round trips, want %d", got, want)
	}
}

// A machine's HAL says when its plugin process died between calls, and
// why; Close of a host whose plugin is stopped (SIGSTOP) is bounded.
func TestPluginDeathAndFrozenClose(t *testing.T) {
	t.Parallel()
	h := newHost(t, "")
	mhs, err := h.OpenMachine([]string{"apic", "pmu"}, machine, nil)
	if err != nil {
		t.Fatal(err)
	}
	pids := h.Pids()
	if err := syscall.Kill(pids["apic"], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-mhs[0].Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed after the plugin was killed")
	}
	if err := mhs[0].Err(); err == nil || !strings.Contains(err.Error(), `hal "apic"`) || !strings.Contains(err.Error(), "signal: killed") {
		t.Fatalf("Err %v, want the HAL and the signal", err)
	}
	if err := mhs[1].Err(); err != nil {
		t.Fatalf("the running pmu plugin: Err %v", err)
	}
	if err := syscall.Kill(pids["pmu"], syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	h.Close()
	if took := time.Since(start); took > halrpc.ShutdownTimeout+3*time.Second {
		t.Errorf("Close with a stopped plugin took %s", took)
	}
	waitGone(t, pids["pmu"])
	if err := mhs[1].Err(); err != nil {
		t.Errorf("a plugin the host stopped: Err %v, want nil", err)
	}
}
