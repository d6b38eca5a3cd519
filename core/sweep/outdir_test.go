package sweep_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/core/sweep"
	"github.com/proflab/proflab/core/sweep/results"
)

// execute runs p into out with opt and returns Execute's error.
func execute(p *sweep.Plan, out string, opt sweep.Options) (sweep.Summary, error) {
	opt.Out = out
	return sweep.Execute(context.Background(), p, opt)
}

// A sweep writes only into a new or empty folder or its own: a folder
// holding other files (a project folder given as --out .) is refused and
// left as it was.
func TestOutMustBeTheSweepsOwn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 2\n"))
	project := filepath.Join(dir, "project")
	os.MkdirAll(filepath.Join(project, "plots"), 0o755)
	os.WriteFile(filepath.Join(project, "notes.md"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(project, "summary.md"), []byte("my summary"), 0o644)
	os.WriteFile(filepath.Join(project, "plots", "figure1.svg"), []byte("<svg/>"), 0o644)
	_, err := execute(p, project, sweep.Options{})
	if err == nil || !strings.Contains(err.Error(), "notes.md") || !strings.Contains(err.Error(), "choose another --out") {
		t.Fatalf("a folder holding other files: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(project, "summary.md")); string(b) != "my summary" {
		t.Error("the refused sweep overwrote summary.md")
	}
	if _, err := os.Stat(filepath.Join(project, "plots", "figure1.svg")); err != nil {
		t.Error("the refused sweep removed plots/")
	}
	// its own folder, resumed, is fine, even with a file of the user's beside
	own := filepath.Join(dir, "own")
	run(t, p, own, sweep.Options{})
	os.WriteFile(filepath.Join(own, "notes.md"), []byte("mine"), 0o644)
	if _, err := execute(p, own, sweep.Options{Resume: true}); err != nil {
		t.Errorf("resuming its own folder: %v", err)
	}
}

// proflab report rewrites only a sweep's folder, and of it only the files
// the reports own: a plot of the user's in plots/ stays.
func TestReportTouchesOnlyItsFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := sweep.Report(dir); err == nil || !strings.Contains(err.Error(), "sweep.json") {
		t.Errorf("a folder that is not a sweep's: %v", err)
	}
	out := filepath.Join(dir, "out")
	run(t, plan(t, writeSweep(t, dir, "repeats = 2\n[grid]\ninterval = [5000, 9000]\n")), out, sweep.Options{})
	mine := filepath.Join(out, "plots", "mine.svg")
	if err := os.WriteFile(mine, []byte("<svg/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sweep.Report(out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("proflab report removed a plot it did not write: %v", err)
	}
	if svgs, _ := filepath.Glob(filepath.Join(out, "plots", "*.svg")); len(svgs) < 2 {
		t.Errorf("the report's own plots are missing: %v", svgs)
	}
}

// flockFolder holds dir's lock as another proflab would, until release.
func flockFolder(t *testing.T, dir string) (release func()) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	f, err := os.OpenFile(filepath.Join(dir, sweep.LockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	f.WriteString("pid 4242 on elsewhere\n")
	return func() { f.Close() }
}

// One writer per output folder: a second sweep on a folder being written
// (a Slurm requeue while the first still runs) is refused naming the
// writer, or waits for it with --wait; merge and report take the lock too.
func TestOneWriterPerFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 3\n"))
	out := filepath.Join(dir, "out")
	release := flockFolder(t, out)
	_, err := execute(p, out, sweep.Options{})
	if !errors.Is(err, sweep.ErrLocked) || !strings.Contains(err.Error(), "pid 4242") || !strings.Contains(err.Error(), "--wait") {
		t.Fatalf("a folder being written: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, results.FileName)); err == nil {
		t.Error("the refused sweep wrote results")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = sweep.Execute(ctx, p, sweep.Options{Out: out, Wait: true})
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("--wait on a folder held throughout: %v", err)
	}
	held := release
	go func() { time.Sleep(200 * time.Millisecond); held() }()
	if sum, err := execute(p, out, sweep.Options{Wait: true}); err != nil || sum.OK != 3 {
		t.Errorf("--wait for a writer that ends: %v, %v", sum, err)
	}
	defer flockFolder(t, out)()
	if err := sweep.Report(out); !errors.Is(err, sweep.ErrLocked) {
		t.Errorf("report on a folder being written: %v", err)
	}
}

// A run's folder without its line (the sweep was killed between writing
// the folder and the line) is an unfinished run: --resume runs it again
// and replaces the folder.
func TestResumeReplacesAnUnfinishedRunFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 3\n"))
	out := filepath.Join(dir, "out")
	run(t, p, out, sweep.Options{RunOutputs: true})
	path := filepath.Join(out, results.FileName)
	b, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(b), "\n")
	os.WriteFile(path, []byte(strings.Join(lines[:2], "")), 0o644) // the last run's line never written
	last := p.Run(2)
	stale := filepath.Join(out, sweep.RunsDir, last.ID, "stale.txt")
	os.WriteFile(stale, []byte("from the killed sweep"), 0o644)
	sum, err := execute(p, out, sweep.Options{Resume: true, RunOutputs: true})
	if err != nil || sum.OK != 3 {
		t.Fatalf("--resume: %v, %v", sum, err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the unfinished run's folder was not replaced")
	}
	if _, err := os.Stat(filepath.Join(out, sweep.RunsDir, last.ID, "result.json")); err != nil {
		t.Errorf("the rerun's folder: %v", err)
	}
}

// A log that cannot be written is an error of the sweep, and the run's
// line is not written either, so --resume runs it again and writes it.
func TestARunLogWriteErrorIsAnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 2\n[set]\nmode = \"fail\"\n"))
	out := filepath.Join(dir, "out")
	// the sweep's own folder (a sweep stopped before its first run), with
	// a file where its logs folder goes
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sweep.Execute(stopped, p, sweep.Options{Out: out}); !errors.Is(err, sweep.ErrInterrupted) {
		t.Fatalf("a sweep stopped before its first run: %v", err)
	}
	os.WriteFile(filepath.Join(out, "logs"), []byte("a file where the logs folder goes"), 0o644)
	_, err := execute(p, out, sweep.Options{Jobs: 1, Resume: true})
	if err == nil || !strings.Contains(err.Error(), "writing the log of run") {
		t.Fatalf("a log that cannot be written: %v", err)
	}
	if n, _, _ := results.Count(filepath.Join(out, results.FileName)); n != 0 {
		t.Errorf("%d lines written for runs whose logs are missing", n)
	}
	os.Remove(filepath.Join(out, "logs"))
	sum, err := execute(p, out, sweep.Options{Jobs: 1, Resume: true})
	if err != nil || sum.Failed != 2 {
		t.Fatalf("--resume: %v, %v", sum, err)
	}
	for r := range p.ShardRuns(sweep.Whole) {
		if b, err := os.ReadFile(filepath.Join(out, "logs", r.ID+".txt")); err != nil || !strings.Contains(string(b), "asked to fail") {
			t.Errorf("run %s's log: %q, %v", r.ID, b, err)
		}
	}
}

// --out through a symbolic link writes where the link points, a dangling
// link included, and leaves the link a link.
func TestOutThroughASymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 2\n"))
	for _, name := range []string{"existing", "dangling"} {
		target := filepath.Join(dir, "target-"+name)
		if name == "existing" {
			os.MkdirAll(target, 0o755)
		}
		link := filepath.Join(dir, "link-"+name)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if sum, err := execute(p, link, sweep.Options{}); err != nil || sum.OK != 2 {
			t.Fatalf("%s link: %v, %v", name, sum, err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s link: the link was replaced (%v)", name, err)
		}
		if n, _, err := results.Count(filepath.Join(target, results.FileName)); n != 2 || err != nil {
			t.Errorf("%s link: %d results where it points (%v)", name, n, err)
		}
	}
}

// results.jsonl keeps the mode of the folder's other files after the
// final rewrite and after a merge (never a temporary file's 0600).
func TestResultsFileMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 4\n"))
	var shards []string
	for k := range 2 {
		out := filepath.Join(dir, "shard", string(rune('0'+k)))
		run(t, p, out, sweep.Options{Shard: sweep.Shard{Index: k, Count: 2}})
		shards = append(shards, out)
	}
	merged := filepath.Join(dir, "merged")
	if err := sweep.Merge(merged, shards, sweep.MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range append(shards, merged) {
		for _, name := range []string{results.FileName, "summary.md"} {
			if fi, err := os.Stat(filepath.Join(d, name)); err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("%s/%s: mode %v (%v), want -rw-r--r--", d, name, fi.Mode().Perm(), err)
			}
		}
	}
}

// Shards or resumed runs that read different versions of a module are
// refused (merge, --resume), or recorded with --allow-mixed.
func TestMixedInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mod := filepath.Join(dir, "helper.lua")
	os.WriteFile(mod, []byte("return { value = 1 }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "s.lua"), []byte("local lab = require \"proflab\"\nlab.record{ v = require(\"helper\").value }\n"), 0o644)
	path := filepath.Join(dir, "s.toml")
	os.WriteFile(path, []byte("scenario = \"s.lua\"\nconfig_file = "+quote(inprocConfig(t))+"\nrepeats = 4\n"), 0o644)
	p := plan(t, path)
	var shards []string
	for k := range 2 {
		if k == 1 {
			os.WriteFile(mod, []byte("return { value = 2 }\n"), 0o644) // edited between the shards
		}
		out := filepath.Join(dir, "shard", string(rune('0'+k)))
		run(t, p, out, sweep.Options{Shard: sweep.Shard{Index: k, Count: 2}})
		shards = append(shards, out)
		m, err := sweep.ReadManifest(out)
		if err != nil || m.Inputs["helper.lua"] == "" || m.Inputs[sweep.ProflabInput] == "" {
			t.Fatalf("shard %d's recorded inputs: %v, %v", k, m, err)
		}
	}
	err := sweep.Merge(filepath.Join(dir, "merged"), shards, sweep.MergeOptions{})
	if err == nil || !strings.Contains(err.Error(), "helper.lua") || !strings.Contains(err.Error(), "--allow-mixed") {
		t.Fatalf("merging shards that read two versions of helper.lua: %v", err)
	}
	merged := filepath.Join(dir, "merged-anyway")
	if err := sweep.Merge(merged, shards, sweep.MergeOptions{AllowMixed: true}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(merged, sweep.ManifestName))
	var m sweep.Manifest
	json.Unmarshal(b, &m)
	if len(m.Mixed) != 1 || m.Mixed[0] != "helper.lua" {
		t.Errorf("--allow-mixed: mixed %v, want [helper.lua]", m.Mixed)
	}

	// --resume after the module changed
	out := filepath.Join(dir, "whole")
	run(t, p, out, sweep.Options{})
	res := filepath.Join(out, results.FileName)
	lines, _ := os.ReadFile(res)
	os.WriteFile(res, []byte(strings.Join(strings.SplitAfter(string(lines), "\n")[:2], "")), 0o644)
	os.WriteFile(mod, []byte("return { value = 3 }\n"), 0o644)
	if _, err := execute(p, out, sweep.Options{Resume: true}); err == nil || !strings.Contains(err.Error(), "helper.lua") {
		t.Errorf("--resume after the module changed: %v", err)
	}
	if _, err := execute(p, out, sweep.Options{Resume: true, AllowMixed: true}); err != nil {
		t.Errorf("--resume --allow-mixed: %v", err)
	}
}

// A folder holding someone's summary.md and plots/figure1.svg but no
// sweep.json is not a sweep's, though a sweep writes files of those
// names: sweep and merge refuse it before writing anything there, not
// even their lock (issue 29.9).
func TestOutWithASweepsNamesButNoManifest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 2\n"))
	paper := filepath.Join(dir, "paper")
	os.MkdirAll(filepath.Join(paper, "plots"), 0o755)
	os.WriteFile(filepath.Join(paper, "summary.md"), []byte("my summary"), 0o644)
	os.WriteFile(filepath.Join(paper, "plots", "figure1.svg"), []byte("<svg/>"), 0o644)
	before := tree(t, paper)
	_, err := execute(p, paper, sweep.Options{})
	if err == nil || !strings.Contains(err.Error(), "summary.md") || !strings.Contains(err.Error(), "no sweep.json") || !strings.Contains(err.Error(), "choose another --out") {
		t.Errorf("sweep into it: %v", err)
	}
	if _, err := execute(p, paper, sweep.Options{Resume: true}); err == nil {
		t.Error("--resume into it was accepted")
	}
	var shards []string
	for k := range 2 {
		d := filepath.Join(dir, "shard"+strconv.Itoa(k))
		run(t, p, d, sweep.Options{Shard: sweep.Shard{Index: k, Count: 2}})
		shards = append(shards, d)
	}
	if err := sweep.Merge(paper, shards, sweep.MergeOptions{}); err == nil || !strings.Contains(err.Error(), "no sweep.json") {
		t.Errorf("merge into it: %v", err)
	}
	if after := tree(t, paper); after != before {
		t.Errorf("the refused commands changed the folder:\nbefore %s\nafter  %s", before, after)
	}
}

// tree lists the files under dir with their contents, for comparisons.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		b.WriteString(rel)
		if !d.IsDir() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b.WriteString("=" + string(data))
		}
		b.WriteString("; ")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// report, merge and --resume read a sweep's folder within bounds: a
// results.jsonl or sweep.json that is a FIFO or a link to /dev/zero is
// refused at once, naming it, instead of hanging or filling memory; a
// .lock that is a symbolic link is refused, and what it names is left
// alone (issue 29.13).
func TestFolderReadsAreBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 2\n"))
	victim := filepath.Join(dir, "victim.txt")
	os.WriteFile(victim, []byte("someone's file"), 0o644)
	for _, c := range []struct {
		name, file, want string
		plant            func(path string) error
	}{
		{"results FIFO", results.FileName, "FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"results /dev/zero", results.FileName, "character device", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"manifest FIFO", sweep.ManifestName, "FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"manifest /dev/zero", sweep.ManifestName, "character device", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"lock symlink", sweep.LockName, "lock", func(p string) error { return os.Symlink(victim, p) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var shards []string
			for k := range 2 {
				d := filepath.Join(t.TempDir(), "shard")
				run(t, p, d, sweep.Options{Shard: sweep.Shard{Index: k, Count: 2}})
				shards = append(shards, d)
			}
			bad := shards[1]
			os.Remove(filepath.Join(bad, c.file))
			if err := c.plant(filepath.Join(bad, c.file)); err != nil {
				t.Skipf("cannot plant it: %v", err)
			}
			for name, cmd := range map[string]func() error{
				"--resume": func() error {
					_, err := execute(p, bad, sweep.Options{Resume: true, Shard: sweep.Shard{Index: 1, Count: 2}})
					return err
				},
				"merge":  func() error { return sweep.Merge(filepath.Join(t.TempDir(), "m"), shards, sweep.MergeOptions{}) },
				"report": func() error { return sweep.Report(bad) },
			} {
				if c.name == "lock symlink" && name == "merge" {
					continue // merge takes no lock on its shards
				}
				var err error
				within(t, 10*time.Second, func() { err = cmd() })
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file) {
					t.Errorf("%s: %v, want an error naming %s and saying %q", name, err, c.file, c.want)
				}
			}
			if b, _ := os.ReadFile(victim); string(b) != "someone's file" {
				t.Errorf("the file a .lock link names was changed: %q", b)
			}
		})
	}
}

// within runs fn and fails the test if it has not returned after d: a
// read that hangs on a FIFO must fail the test, not hang it.
func within(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
	}
}
