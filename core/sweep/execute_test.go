package sweep_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/core/sweep"
	"github.com/proflab/proflab/core/sweep/results"
	"github.com/proflab/proflab/halplugins/haltest"
)

// plan reads and expands the sweep file at path.
func plan(t testing.TB, path string) *sweep.Plan {
	t.Helper()
	f, err := sweep.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.Expand(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run executes plan into out with opt.
func run(t testing.TB, p *sweep.Plan, out string, opt sweep.Options) sweep.Summary {
	t.Helper()
	opt.Out = out
	sum, err := sweep.Execute(context.Background(), p, opt)
	if err != nil {
		t.Fatalf("sweep into %s: %v", out, err)
	}
	return sum
}

// stripped is a results file without its timings.
func stripped(t testing.TB, dir string) string {
	t.Helper()
	lines, torn, err := results.Read(filepath.Join(dir, results.FileName))
	if err != nil || torn {
		t.Fatalf("%s: %v (torn %v)", dir, err, torn)
	}
	var b strings.Builder
	for _, l := range lines {
		m, err := l.WithoutTimings().Marshal()
		if err != nil {
			t.Fatal(err)
		}
		b.Write(m)
	}
	return b.String()
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const smallSweep = `seed = 11
repeats = 3
[grid]
interval = [1221, 5000, 20000]
duration_us = [1000, 3000]
`

// The results and reports do not depend on the number of workers or on
// sharding: -j 1, -j 3, and shards 0/3, 1/3, 2/3 merged are the same
// bytes, timings aside; the seed reaches math.random.
func TestDeterministicAcrossJobsAndShards(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, smallSweep))
	one, three := filepath.Join(dir, "j1"), filepath.Join(dir, "j3")
	if sum := run(t, p, one, sweep.Options{Jobs: 1}); sum.OK != 18 || sum.Runs != 18 {
		t.Fatalf("-j 1: %v", sum)
	}
	run(t, p, three, sweep.Options{Jobs: 3})
	want := stripped(t, one)
	if got := stripped(t, three); got != want {
		t.Fatalf("-j 3 differs from -j 1:\n%s\n----\n%s", got, want)
	}
	var shards []string
	for k := range 3 {
		d := filepath.Join(dir, fmt.Sprintf("shard-%d", k))
		sum := run(t, p, d, sweep.Options{Jobs: 2, Shard: sweep.Shard{Index: k, Count: 3}})
		if sum.Runs != 6 {
			t.Errorf("shard %d/3 has %d runs, want 6", k, sum.Runs)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(dir, "merged")
	if err := sweep.Merge(merged, []string{shards[2], shards[0], shards[1]}, sweep.MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := stripped(t, merged); got != want {
		t.Fatalf("merged shards differ from the unsharded sweep:\n%s\n----\n%s", got, want)
	}
	for _, f := range []string{"results.csv", "summary.md", "report.html", "plots/draw-vs-interval.svg", "sweep.json"} {
		if a, b := readFile(t, filepath.Join(one, f)), readFile(t, filepath.Join(merged, f)); a != b {
			t.Errorf("%s differs between -j 1 and the merged shards", f)
		}
	}
	// seeds differ per run and reach math.random
	lines, _, _ := results.Read(filepath.Join(one, results.FileName))
	draws := map[string]bool{}
	for _, l := range lines {
		draws[fmt.Sprint(l.Metrics["draw"])] = true
		if fmt.Sprint(l.Interrupts["ProfileTime"]) != fmt.Sprint(l.Metrics["samples"]) {
			t.Errorf("run %d: %d ProfileTime interrupts recorded, the profile counted %v", l.Index, l.Interrupts["ProfileTime"], l.Metrics["samples"])
		}
	}
	if len(draws) != len(lines) {
		t.Errorf("%d distinct math.random draws over %d runs", len(draws), len(lines))
	}
}

// merge refuses a missing shard, a shard twice, an unfinished shard and a
// shard of another sweep.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 4\n"))
	var shards []string
	for k := range 2 {
		d := filepath.Join(dir, fmt.Sprintf("s%d", k))
		run(t, p, d, sweep.Options{Shard: sweep.Shard{Index: k, Count: 2}})
		shards = append(shards, d)
	}
	otherDir := filepath.Join(dir, "other")
	os.MkdirAll(otherDir, 0o755)
	other := plan(t, writeSweep(t, otherDir, "repeats = 5\n"))
	run(t, other, filepath.Join(dir, "o1"), sweep.Options{Shard: sweep.Shard{Index: 1, Count: 2}})

	torn := filepath.Join(dir, "torn")
	run(t, p, torn, sweep.Options{Shard: sweep.Shard{Index: 1, Count: 2}})
	lines, _, _ := results.Read(filepath.Join(torn, results.FileName))
	results.Write(filepath.Join(torn, results.FileName), lines[:1])

	for _, tt := range []struct {
		name string
		dirs []string
		want string
	}{
		{"missing", shards[:1], "shard 1/2"},
		{"twice", []string{shards[0], shards[0], shards[1]}, "both shard 0/2"},
		{"other sweep", []string{shards[0], filepath.Join(dir, "o1")}, "another sweep"},
		{"unfinished", []string{shards[0], torn}, "has 1 of its 2 runs"},
		{"not a sweep", []string{shards[0], dir}, "not a sweep's output folder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := sweep.Merge(filepath.Join(t.TempDir(), "out"), tt.dirs, sweep.MergeOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// A folder with results is refused without --resume; a folder of another
// sweep is refused even with it.
func TestOutRefused(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 2\n"))
	out := filepath.Join(dir, "out")
	run(t, p, out, sweep.Options{})
	if _, err := sweep.Execute(context.Background(), p, sweep.Options{Out: out}); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("rerun without --resume: %v", err)
	}
	if sum := run(t, p, out, sweep.Options{Resume: true}); sum.Skipped != 2 || sum.OK != 2 {
		t.Errorf("resume of a finished sweep: %+v", sum)
	}
	p2 := plan(t, writeSweep(t, dir, "repeats = 3\n"))
	if _, err := sweep.Execute(context.Background(), p2, sweep.Options{Out: out, Resume: true}); err == nil || !strings.Contains(err.Error(), "another sweep") {
		t.Errorf("another sweep's folder: %v", err)
	}
}

// A failed check and a Lua error are that run's status; --retry-failed
// reruns exactly those.
func TestBadRunsAndRetry(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "[grid]\nmode = [\"ok\", \"fail\", \"raise\"]\n"))
	out := filepath.Join(dir, "out")
	sum := run(t, p, out, sweep.Options{Jobs: 2})
	if sum.OK != 1 || sum.Failed != 1 || sum.Errors != 1 {
		t.Fatalf("summary %+v, want 1 ok, 1 failed, 1 error", sum)
	}
	lines, _, _ := results.Read(filepath.Join(out, results.FileName))
	if lines[1].Status != results.StatusFailed || lines[2].Status != results.StatusError || lines[2].Error == nil ||
		!strings.Contains(lines[2].Error.Message, "probe.lua:16: asked to raise") {
		t.Fatalf("lines %+v", lines)
	}
	if _, err := os.Stat(filepath.Join(out, "logs", lines[2].ID+".txt")); err != nil {
		t.Errorf("no log kept for the failed run: %v", err)
	}
	sum = run(t, p, out, sweep.Options{RetryFailed: true})
	if sum.Skipped != 1 || sum.Failed != 1 || sum.Errors != 1 {
		t.Fatalf("retry: %+v, want 1 skipped and the two bad runs rerun", sum)
	}
	if got, _, _ := results.Read(filepath.Join(out, results.FileName)); len(got) != 3 {
		t.Fatalf("%d lines after --retry-failed, want 3", len(got))
	}
}

// A run that crashes its HAL plugin (a real process that exits) or hangs
// it (past the HAL's call timeout) is recorded as failed with the
// plugin's error; the sweep completes, and the same worker's later runs
// get a fresh plugin process.
func TestPluginCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	dir, _, path := crashySweep(t, "timeout = \"500ms\"\n", "repeats = 2\n[set]\nhal = \"crashy\"\n[grid]\ninterval = [5000, 4242, 6000, 4343, 7000]\n")
	p := plan(t, path)
	out := filepath.Join(dir, "out")
	sum := run(t, p, out, sweep.Options{Jobs: 1})
	if sum.OK != 6 || sum.Failed != 4 {
		t.Fatalf("%v, want 6 ok, the 2 crashes and the 2 hangs failed", sum)
	}
	lines, _, _ := results.Read(filepath.Join(out, results.FileName))
	for _, l := range lines {
		iv := fmt.Sprint(l.Params["interval"])
		bad := iv == "4242" || iv == "4343"
		if bad != (l.Status == results.StatusFailed) {
			t.Errorf("interval %v: status %s", iv, l.Status)
		}
		if bad && (l.Error == nil || l.Error.Kind != "plugin" || strings.Contains(l.Error.Message, "pid")) {
			t.Errorf("interval %s: the run's error is %+v, want a plugin error without a pid", iv, l.Error)
		}
		if iv == "4343" && !strings.Contains(l.Error.Message, "did not answer in time") {
			t.Errorf("hang: %s", l.Error.Message)
		}
	}
	if kids := children(t); len(kids) > 0 {
		t.Errorf("plugin processes left behind: %v", kids)
	}
}

// children lists this process's child processes (Linux).
func children(t testing.TB) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	me := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[1] != "Z" && f[2] == strconv.Itoa(me) {
			out = append(out, pid)
		}
	}
	return out
}

// Cancelling the context (Ctrl-C, SIGTERM) stops the sweep: the finished
// runs stay, the interrupted ones are not written, no plugin process is
// left, and --resume finishes the rest.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("uses plugins")
	}
	dir, _, path := crashySweep(t, "", "repeats = 40\n[set]\nhal = \"crashy\"\ninterval = 1221\nduration_us = 20000\n")
	p := plan(t, path)
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	prog := &cancelAfter{n: 5, cancel: cancel}
	sum, err := sweep.Execute(ctx, p, sweep.Options{Out: out, Jobs: 2, Progress: prog})
	if !errors.Is(err, sweep.ErrInterrupted) || !sum.Interrupted {
		t.Fatalf("err %v, summary %v: want interrupted", err, sum)
	}
	lines, torn, err := results.Read(filepath.Join(out, results.FileName))
	if err != nil || torn || len(lines) != sum.Finished() || len(lines) < 5 || len(lines) >= 40 {
		t.Fatalf("%d lines (torn %v, %v) for %d finished", len(lines), torn, err, sum.Finished())
	}
	for _, l := range lines {
		if l.Status != results.StatusOK {
			t.Errorf("run %d written as %s: %+v", l.Index, l.Status, l.Error)
		}
	}
	if kids := children(t); len(kids) > 0 {
		t.Errorf("plugin processes left behind: %v", kids)
	}
	sum = run(t, p, out, sweep.Options{Jobs: 2, Resume: true})
	if sum.OK != 40 || sum.Skipped != len(lines) {
		t.Fatalf("resume: %v", sum)
	}
}

// cancelAfter cancels the sweep after n runs finished.
type cancelAfter struct {
	n, seen int
	cancel  func()
}

func (c *cancelAfter) Start(int, int) {}
func (c *cancelAfter) Finish()        {}
func (c *cancelAfter) Add(results.Line) {
	if c.seen++; c.seen == c.n {
		c.cancel()
	}
}

// A sweep killed with SIGKILL in the middle and resumed loses no finished
// run and runs none twice; a torn last line is dropped.
func TestResumeAfterSIGKILL(t *testing.T) {
	if os.Getenv("PROFLAB_SWEEP_CHILD") != "" {
		p := plan(t, os.Getenv("PROFLAB_SWEEP_CHILD"))
		run(t, p, os.Getenv("PROFLAB_SWEEP_OUT"), sweep.Options{Jobs: 2})
		return
	}
	dir := t.TempDir()
	path := writeSweep(t, dir, "repeats = 60\n[set]\nduration_us = 20000\ninterval = 1221\n")
	out := filepath.Join(dir, "out")
	cmd := exec.Command(os.Args[0], "-test.run=^TestResumeAfterSIGKILL$")
	cmd.Env = append(os.Environ(), "PROFLAB_SWEEP_CHILD="+path, "PROFLAB_SWEEP_OUT="+out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	resultsPath := filepath.Join(out, results.FileName)
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(resultsPath)
		if bytes.Count(b, []byte("\n")) >= 10 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child sweep wrote no 10 lines in 60 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before, _, err := results.Read(resultsPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) >= 60 {
		t.Skip("the child finished before the kill")
	}
	// a run torn in the middle of its line
	f, _ := os.OpenFile(resultsPath, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"index":59,"id":"`)
	f.Close()

	p := plan(t, path)
	sum := run(t, p, out, sweep.Options{Jobs: 2, Resume: true})
	if sum.Skipped != len(before) || sum.OK != 60 {
		t.Fatalf("resume: %v, want %d skipped and 60 ok", sum, len(before))
	}
	after, torn, err := results.Read(resultsPath)
	if err != nil || torn || len(after) != 60 {
		t.Fatalf("%d lines after resume (torn %v, %v)", len(after), torn, err)
	}
	for i, l := range after {
		if l.Index != i {
			t.Fatalf("line %d is run %d: a run lost or doubled", i, l.Index)
		}
	}
	kept := map[string]string{}
	for _, l := range after {
		b, _ := l.Marshal()
		kept[l.ID] = string(b)
	}
	for _, l := range before {
		b, _ := l.Marshal()
		if kept[l.ID] != string(b) {
			t.Errorf("run %s finished before the kill but was not kept as it was", l.ID)
		}
	}
	// and equal to an uninterrupted sweep, timings aside
	fresh := filepath.Join(dir, "fresh")
	run(t, p, fresh, sweep.Options{Jobs: 1})
	if stripped(t, fresh) != stripped(t, out) {
		t.Error("killed-and-resumed results differ from an uninterrupted sweep")
	}
}

// [config] applies a parameter to the run's configuration: the machine's
// defaults (machine.cpus) and a HAL's settings (hal.apic.settings.min,
// which gets the worker its own plugin host per value).
func TestConfigOverrides(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.lua"), []byte(`local lab = require "proflab"
local m = lab.machine{ hal = { "apic" } }
local min
for _, s in ipairs(m:hal_sources()) do if s.name == "ProfileTime" then min = s.min end end
lab.record{ cpus = m:cpu_count(), min = min }`), 0o644)
	cfg, _ := filepath.Abs(filepath.Join("testdata", "inproc.toml"))
	path := filepath.Join(dir, "sweep.toml")
	os.WriteFile(path, []byte("scenario = \"s.lua\"\nconfig_file = "+quote(cfg)+`
[grid]
cpus = [1, 3]
min = [1221, 2000]
[config]
cpus = "machine.cpus"
min = "hal.apic.settings.min"
`), 0o644)
	out := filepath.Join(dir, "out")
	run(t, plan(t, path), out, sweep.Options{Jobs: 1})
	lines, _, _ := results.Read(filepath.Join(out, results.FileName))
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if fmt.Sprint(l.Metrics["cpus"]) != fmt.Sprint(l.Params["cpus"]) || fmt.Sprint(l.Metrics["min"]) != fmt.Sprint(l.Params["min"]) {
			t.Errorf("params %v: the machine had %v cpus and ProfileTime minimum %v", l.Params, l.Metrics["cpus"], l.Metrics["min"])
		}
	}
}

// RunOutputs writes each run's output folder, named by its id, with its
// result and its sampled profile as pprof.
func TestRunOutputs(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 2\n"))
	out := filepath.Join(dir, "out")
	run(t, p, out, sweep.Options{RunOutputs: true})
	for r := range p.ShardRuns(sweep.Whole) {
		runDir := filepath.Join(out, sweep.RunsDir, r.ID)
		if _, err := os.Stat(filepath.Join(runDir, "result.json")); err != nil {
			t.Errorf("run %s: %v", r.ID, err)
		}
		if pprofs, _ := filepath.Glob(filepath.Join(runDir, "*.pb.gz")); len(pprofs) == 0 {
			entries, _ := os.ReadDir(runDir)
			t.Errorf("run %s: no pprof profile among %v", r.ID, entries)
		}
	}
}

// A HAL order is a list parameter: [config] hands it to machine.hal, and
// the scenario sees it in lab.params as a table.
func TestHALOrderParameter(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.lua"), []byte(`local lab = require "proflab"
local m = lab.machine{}
local n = 0
for _ in ipairs(m:hal_sources()) do n = n + 1 end
lab.record{ sources = n, listed = #lab.params.hal }`), 0o644)
	cfg, _ := filepath.Abs(filepath.Join("testdata", "inproc.toml"))
	path := filepath.Join(dir, "sweep.toml")
	os.WriteFile(path, []byte("scenario = \"s.lua\"\nconfig_file = "+quote(cfg)+`
[grid]
hal = [["apic"], ["apic", "pmu"]]
[config]
hal = "machine.hal"
`), 0o644)
	out := filepath.Join(dir, "out")
	run(t, plan(t, path), out, sweep.Options{})
	lines, _, _ := results.Read(filepath.Join(out, results.FileName))
	if len(lines) != 2 || fmt.Sprint(lines[0].Metrics["sources"]) != "1" || fmt.Sprint(lines[0].Metrics["listed"]) != "1" ||
		fmt.Sprint(lines[1].Metrics["listed"]) != "2" || fmt.Sprint(lines[1].Metrics["sources"]) == "1" {
		t.Fatalf("lines %+v", lines)
	}
}

// openFiles counts this process's open file descriptors.
func openFiles(t testing.TB) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd here: %v", err)
	}
	return len(fds)
}

// A run's spooled trace events are released when the run's line is
// written, not left open until the garbage collector finds them: a long
// sweep with the kernel logger must not run out of file descriptors.
func TestRunsReleaseTheirSpools(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 24\n[set]\nlogger = true\n"))
	// With the collector off, a file nobody closed stays open (a
	// finalizer would otherwise close it at some unknown time).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	before := openFiles(t)
	run(t, p, filepath.Join(dir, "out"), sweep.Options{Jobs: 1})
	if after := openFiles(t); after-before > 4 {
		t.Errorf("%d file descriptors still open after %d runs with a logger (before %d, after %d)", after-before, p.Len(), before, after)
	}
}

// A run twice in results.jsonl (a doctored copy appended) is refused by
// report, --resume, --retry-failed and merge alike, naming the run and
// the repair, and nothing is rewritten: report used to put the last line
// into results.csv and --resume to keep the first (issue 29.6). The
// repair the message gives works.
func TestDuplicateRunRefusedEverywhere(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 4\n"))
	whole, shards := wholeAndShards(t, p, dir)
	// a copy of run 2's line with a doctored value, appended
	doctor := func(dir string, index int) string {
		path := filepath.Join(dir, results.FileName)
		lines, _, err := results.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		var id string
		for _, l := range lines {
			if l.Index == index {
				l.Metrics["draw"] = 123456.0
				b, _ := l.Marshal()
				f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				f.Write(b)
				f.Close()
				id = l.ID
			}
		}
		return id
	}
	id := doctor(whole, 2)
	doctor(shards[0], 2)
	csvBefore := readFile(t, filepath.Join(whole, "results.csv"))
	for name, cmd := range map[string]func() error{
		"report":         func() error { return sweep.Report(whole) },
		"--resume":       func() error { _, err := execute(p, whole, sweep.Options{Resume: true}); return err },
		"--retry-failed": func() error { _, err := execute(p, whole, sweep.Options{RetryFailed: true}); return err },
		"merge":          func() error { return sweep.Merge(filepath.Join(t.TempDir(), "m"), shards, sweep.MergeOptions{}) },
	} {
		before := readFile(t, filepath.Join(whole, results.FileName))
		err := cmd()
		var dup *results.DuplicateError
		if !errors.As(err, &dup) || dup.ID != id || !strings.Contains(err.Error(), "run "+id+" (index 2) is there twice") || !strings.Contains(err.Error(), "delete both lines") {
			t.Errorf("%s: %v, want run %s refused as a duplicate with the repair", name, err, id)
		}
		if after := readFile(t, filepath.Join(whole, results.FileName)); after != before {
			t.Errorf("%s rewrote results.jsonl", name)
		}
	}
	if csv := readFile(t, filepath.Join(whole, "results.csv")); csv != csvBefore || strings.Contains(csv, "123456") {
		t.Error("report wrote results.csv from a file with a run twice")
	}
	// the repair the message gives: both lines go, --resume runs it again
	var dup *results.DuplicateError
	if !errors.As(sweep.Report(whole), &dup) {
		t.Fatal("report no longer refuses the duplicate")
	}
	repair := exec.Command("sed", "-i", fmt.Sprintf("%dd;%dd", dup.Lines[0], dup.Lines[1]), dup.Path)
	if out, err := repair.CombinedOutput(); err != nil {
		t.Skipf("no sed here: %v %s", err, out)
	}
	if sum := run(t, p, whole, sweep.Options{Resume: true}); sum.Skipped != 3 || sum.OK != 4 {
		t.Errorf("--resume after the repair: %v", sum)
	}
	fresh := filepath.Join(dir, "fresh")
	run(t, p, fresh, sweep.Options{})
	if stripped(t, whole) != stripped(t, fresh) {
		t.Error("the repaired sweep differs from a fresh one")
	}
}

// A plugin's failure reads the same in every process: a crash and a
// panic in the plugin give the same results.jsonl and result.json bytes
// (timings aside) with -j 1 and -j 2, holding no pid and no goroutine
// dump; the pid and the stack belong in the logs (issue 29.8).
func TestPluginFailuresAreDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	dir, _, path := crashySweep(t, "", "repeats = 2\n[set]\nhal = \"crashy\"\n[grid]\ninterval = [5000, 4242, 4444]\n")
	p := plan(t, path)
	var outs []string
	for _, j := range []int{1, 2} {
		out := filepath.Join(dir, fmt.Sprintf("j%d", j))
		if sum := run(t, p, out, sweep.Options{Jobs: j, RunOutputs: true}); sum.OK != 2 || sum.Failed != 4 {
			t.Fatalf("-j %d: %v, want 2 ok and the 2 crashes and 2 panics failed", j, sum)
		}
		outs = append(outs, out)
	}
	one, two := stripped(t, outs[0]), stripped(t, outs[1])
	if one != two {
		t.Errorf("results.jsonl differs between -j 1 and -j 2:\n%s\n----\n%s", one, two)
	}
	for _, w := range []string{"pid", "goroutine", "0x"} {
		if strings.Contains(one, w) {
			t.Errorf("results.jsonl holds %q:\n%s", w, one)
		}
	}
	if !strings.Contains(one, "the HAL panicked: assignment to entry in nil map") {
		t.Errorf("the panic's message is not in the results:\n%s", one)
	}
	for r := range p.ShardRuns(sweep.Whole) {
		var results [2]string
		for i, out := range outs {
			results[i] = withoutTimings(t, filepath.Join(out, sweep.RunsDir, r.ID, "result.json"))
		}
		if results[0] != results[1] {
			t.Errorf("run %s: result.json differs between -j 1 and -j 2:\n%s\n----\n%s", r.ID, results[0], results[1])
		}
		if strings.Contains(results[0], "pid ") || strings.Contains(results[0], "goroutine") {
			t.Errorf("run %s: result.json holds a pid or a stack:\n%s", r.ID, results[0])
		}
	}
}

// withoutTimings is the JSON file at path without its "timings".
func withoutTimings(t *testing.T, path string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "timings")
	b, _ := json.MarshalIndent(m, "", " ")
	return string(b)
}

// A plugin rebuilt in the middle of a sweep is recorded as what ran: each
// run's result.json names the sha256 of the bytes its plugin process was
// started from (the worker restarts the plugin after a crash, from the
// rebuilt file), and the sweep reports the two versions its runs used
// (ErrMixed, sweep.json's mixed) instead of recording the sum taken when
// it began (issue 29.2).
func TestRebuiltPluginIsRecordedAsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	dir, plugin, path := crashySweep(t, "", "[set]\nhal = \"crashy\"\n[grid]\ninterval = [5000, 4242, 6000, 7000]\n")
	b, err := os.ReadFile(plugin)
	if err != nil {
		t.Fatal(err)
	}
	rebuilt := plugin + ".new" // the same plugin, other bytes
	if err := os.WriteFile(rebuilt, append(b, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	before, after := sum(b), sum(append(b, 0))
	t.Setenv("CRASHHAL_REBUILD", rebuilt+":"+plugin) // the crash at 4242 renames it into place
	p := plan(t, path)
	out := filepath.Join(dir, "out")
	sum4, err := sweep.Execute(context.Background(), p, sweep.Options{Out: out, Jobs: 1, RunOutputs: true})
	if !errors.Is(err, sweep.ErrMixed) || sum4.OK != 3 || sum4.Failed != 1 {
		t.Errorf("%v, %v: want the 3 ok runs and the crash, and the two versions of the plugin reported", sum4, err)
	}
	want := map[string]string{"5000": before, "4242": before, "6000": after, "7000": after}
	for r := range p.ShardRuns(sweep.Whole) {
		var res struct {
			Plugins []struct{ HAL, Path, SHA256 string } `json:"plugins"`
		}
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, sweep.RunsDir, r.ID, "result.json"))), &res); err != nil {
			t.Fatal(err)
		}
		iv := fmt.Sprint(r.Params["interval"])
		var got []string
		for _, pl := range res.Plugins {
			if pl.HAL == "crashy" {
				got = append(got, pl.SHA256)
			}
		}
		if len(got) != 1 || got[0] != want[iv] {
			t.Errorf("interval %s: result.json records crashy at %v, want %.12s", iv, got, want[iv])
		}
	}
	m, err := sweep.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Mixed) != 1 || !strings.HasPrefix(m.Mixed[0], sweep.PluginInput) {
		t.Errorf("sweep.json's mixed: %v, want the plugin", m.Mixed)
	}
}

// A plugin start that misses its handshake timeout is the busy machine's
// fault, not the run's: the run runs again, alone, and its result is the
// one it has on an idle machine, for any -j (issue 29.5). The test plugin
// waits 3 s before its handshake (its timeout is 500 ms) in as many starts
// as it finds tokens for.
func TestStartTimeoutsAreRetried(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	dir, _, path := crashySweep(t, "timeout = \"500ms\"\n", "repeats = 3\n[set]\nhal = \"crashy\"\ninterval = 5000\n")
	p := plan(t, path)
	if err := p.Check(); err != nil { // before the tokens: the slow starts are the workers'
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens")
	t.Setenv("CRASHHAL_SLOW_STARTS", tokens)
	var outs []string
	for _, j := range []int{1, 2} {
		os.MkdirAll(tokens, 0o755)
		for k := range 2 { // -j 1: a run's first two starts; -j 2: each worker's first
			os.WriteFile(filepath.Join(tokens, strconv.Itoa(k)), nil, 0o644)
		}
		out := filepath.Join(dir, fmt.Sprintf("j%d", j))
		if sum := run(t, p, out, sweep.Options{Jobs: j}); sum.OK != 3 {
			t.Errorf("-j %d: %v, want every run ok once its plugin started", j, sum)
		}
		if left, _ := os.ReadDir(tokens); len(left) != 0 {
			t.Errorf("-j %d: %d slow starts did not happen: the test proved nothing", j, len(left))
		}
		outs = append(outs, out)
	}
	if a, b := stripped(t, outs[0]), stripped(t, outs[1]); a != b {
		t.Errorf("-j 1 and -j 2 differ:\n%s\n----\n%s", a, b)
	}
}

// crashySweep builds the crashy test HAL (testdata/crashhal) into a new
// folder, writes there lab.toml, whose machine uses it (halLines more in
// its [hal.crashy]), and sweep.toml, which runs the probe scenario with
// that configuration (body after config_file); it returns the folder, the
// plugin's path and the sweep file's.
func crashySweep(t *testing.T, halLines, body string) (dir, plugin, path string) {
	t.Helper()
	dir = t.TempDir()
	plugin, err := haltest.Build(dir, "github.com/proflab/proflab/core/sweep/testdata/crashhal")
	if err != nil {
		t.Fatal(err)
	}
	lab := "[machine]\nhal = [\"crashy\"]\n[hal.crashy]\nplugin = " + quote(plugin) + "\n" + halLines
	path = filepath.Join(dir, "sweep.toml")
	if err := os.WriteFile(filepath.Join(dir, "lab.toml"), []byte(lab), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("scenario = "+quote(probe(t))+"\nconfig_file = \"lab.toml\"\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, plugin, path
}
