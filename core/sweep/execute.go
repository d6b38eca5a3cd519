package sweep

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/scenario"
	"github.com/proflab/proflab/core/sweep/report"
	"github.com/proflab/proflab/core/sweep/results"
)

// Options tune Execute.
type Options struct {
	// Out is the output folder (created if needed).
	Out string
	// Jobs is the number of workers (0: the number of processors).
	Jobs int
	// Shard is the slice of the sweep to run (zero: the whole sweep).
	Shard Shard
	// Resume skips the runs already in Out's results.jsonl (dropping a
	// torn last line); without it, a folder holding results is refused.
	Resume bool
	// RetryFailed is Resume that also reruns the runs that did not end ok.
	RetryFailed bool
	// Progress follows the sweep (nil: silent).
	Progress Progress
	// Wait waits for another proflab writing Out to finish, instead of
	// refusing the folder.
	Wait bool
	// AllowMixed goes on with --resume where the earlier runs read other
	// versions of the files, plugins or proflab than this one, recording
	// the mix in sweep.json, instead of refusing.
	AllowMixed bool
	// StrictParams makes a parameter that no run read an error (after the
	// runs: they are kept), instead of a warning.
	StrictParams bool
	// RunOutputs also writes each finished run's output folder,
	// Out/runs/ID (result.json, config.toml, buckets.csv, a pprof profile
	// per profile, the Perfetto trace: scenario.WriteResult), to compare sampled
	// profiles with the ground truth run by run.
	RunOutputs bool
	// Notes, when not nil, is told what the reports left out to stay
	// bounded (report.Write's notes: plots past the defaults' limit,
	// tables the page does not show), a sentence each, for the terminal.
	Notes func(note string)
}

// RunsDir is the folder of the runs' output folders (Options.RunOutputs).
const RunsDir = "runs"

// Summary counts a sweep's runs.
type Summary struct {
	// Started: the sweep got past its checks (its configurations, its
	// output folder) and went to its runs. A sweep refused before any
	// run is not started, and its counts mean nothing yet.
	Started bool
	// Runs in the shard; Skipped of them were already done (--resume).
	Runs, Skipped int
	// OK, Failed and Errors count every finished run of the shard, the
	// skipped ones included.
	OK, Failed, Errors int
	// Interrupted: the context ended before every run finished; the
	// finished ones are in results.jsonl and --resume goes on.
	Interrupted bool
	// Mixed are the inputs (files, plugins, proflab) of which the runs
	// saw more than one version (sweep.json's "mixed").
	Mixed []string
	// Unread are the sweep's parameters that no run read from lab.params
	// and [config] does not set (sweep.json's "unread_params").
	Unread []string
}

// Finished is the number of runs done.
func (s Summary) Finished() int { return s.OK + s.Failed + s.Errors }

// String is the closing line of a sweep.
func (s Summary) String() string {
	msg := fmt.Sprintf("%d runs: %d ok, %d failed, %d error", s.Runs, s.OK, s.Failed, s.Errors)
	if s.Skipped > 0 {
		msg += fmt.Sprintf(" (%d from before --resume)", s.Skipped)
	}
	if s.Interrupted {
		msg += fmt.Sprintf("; interrupted with %d not run (--resume goes on)", s.Runs-s.Finished())
	}
	return msg
}

func (s *Summary) count(st results.Status) {
	switch st {
	case results.StatusOK:
		s.OK++
	case results.StatusFailed:
		s.Failed++
	default:
		s.Errors++
	}
}

// ErrInterrupted is returned by Execute when ctx ended first.
var ErrInterrupted = errors.New("sweep interrupted")

// Execute runs the plan's runs of opt.Shard on opt.Jobs workers, appending
// each finished run to Out/results.jsonl as it finishes. One bad run never
// stops the sweep: its status and message are its line. When ctx ends,
// the runs in progress are discarded (not written), the workers' plugin
// processes are stopped, and ErrInterrupted is returned with the summary.
// When every run is done, results.jsonl is rewritten in run order (so it
// is the same bytes, timings aside, for any number of workers) and the
// reports are written (report.Write).
func Execute(ctx context.Context, plan *Plan, opt Options) (Summary, error) {
	e := &execution{plan: plan, opt: opt, shard: opt.Shard}
	if e.shard.Count == 0 {
		e.shard = Whole
	}
	e.n = plan.ShardLen(e.shard)
	e.sum = Summary{Runs: e.n}
	unlock, err := e.begin(ctx)
	if err != nil {
		return e.sum, err
	}
	defer unlock()
	e.sum.Started = true
	interrupted, err := e.runAll(ctx)
	if err != nil {
		return e.sum, err
	}
	if interrupted {
		e.sum.Interrupted = true
		return e.sum, ErrInterrupted
	}
	return e.sum, e.finish()
}

// execution is one Execute: the sweep's shard, its output folder and what
// the runs have told so far.
type execution struct {
	plan  *Plan
	opt   Options
	shard Shard
	n     int    // runs in the shard
	out   string // the output folder, resolved
	path  string // its results.jsonl
	sum   Summary
	man   Manifest
	done  *bitset // the shard's runs already done (--resume)
	deps  *dependencies
	read  *paramsRead

	mixedBefore int // inputs seen mixed before this execution's runs
}

// begin checks the plan's configurations, takes the output folder (its
// lock, its ownership), keeps what a --resume keeps there and writes the
// manifest, all before any run; it returns the release of the lock.
func (e *execution) begin(ctx context.Context) (unlock func(), err error) {
	if err := e.plan.Check(); err != nil {
		return nil, err
	}
	out, unlock, err := prepareOut(ctx, e.opt.Out, e.opt.Wait)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (func(), error) { unlock(); return nil, err }
	e.out, e.opt.Out = out, out
	e.path = filepath.Join(out, results.FileName)
	e.man = Manifest{Format: manifestFormat, Sweep: filepath.ToSlash(e.plan.File.Path), Hash: e.plan.Hash,
		Runs: e.plan.Len(), Shard: e.shard, ShardRuns: e.n, Units: e.plan.File.Units, Plots: e.plan.File.Plots,
		Labels: e.plan.File.Labels, Formats: e.plan.File.Formats, Plan: planRecord(e.plan)}
	done, old, err := prepare(e.opt, e.man, e.path, e.plan, &e.sum)
	if err != nil {
		return fail(err)
	}
	e.done = done
	e.deps = newDependencies(e.plan)
	if old != nil && e.sum.Skipped > 0 {
		if err := e.deps.resume(old, e.opt.AllowMixed); err != nil {
			return fail(err)
		}
	}
	e.read = newParamsRead(e.plan, old)
	e.mixedBefore = len(e.deps.mixed)
	if err := e.writeManifest(); err != nil {
		return fail(err)
	}
	return unlock, nil
}

// writeManifest writes sweep.json with what the runs told so far.
func (e *execution) writeManifest() error {
	e.man.Inputs, e.man.Mixed = e.deps.inputs, e.deps.mixedKeys()
	e.man.ParamsRead, e.man.Unread = e.read.lists()
	return writeManifest(e.out, e.man)
}

// runAll runs the shard's runs not done yet on the workers, appending
// each finished run's line (and the log of a run that did not end ok)
// as it finishes. It reports whether ctx ended first.
func (e *execution) runAll(ctx context.Context) (interrupted bool, err error) {
	source, err := input.ReadFile(input.Scenario, e.plan.File.Scenario)
	if err != nil {
		return false, fmt.Errorf("%s: scenario: %w", e.plan.File.Path, err)
	}
	todo := func(yield func(Run) bool) {
		for k := range e.n {
			if !e.done.has(k) && !yield(e.plan.ShardRun(e.shard, k)) {
				return
			}
		}
	}
	app, err := results.OpenAppender(e.path)
	if err != nil {
		return false, err
	}
	defer app.Close()
	progress := e.opt.Progress
	if progress == nil {
		progress = silent{}
	}
	progress.Start(e.n, e.sum.Skipped)
	var runsDir string
	if e.opt.RunOutputs {
		runsDir = filepath.Join(e.out, RunsDir)
	}
	var writeErr error
	interrupted = pool(ctx, e.plan, source, todo, e.n-e.sum.Skipped, e.opt.Jobs, runsDir, func(r Run, l results.Line, log string, used runUse) {
		if writeErr != nil {
			return
		}
		// the log first: a run whose log could not be written has no
		// line, so --resume runs it again and writes its log
		if l.Status != results.StatusOK && log != "" {
			if writeErr = writeRunLog(e.out, l.ID, log); writeErr != nil {
				return
			}
		}
		writeErr = app.Append(l)
		if errors.Is(writeErr, results.ErrLineTooLong) {
			// the run's fault, not the sweep's: its line says so
			l = tooLong(l, writeErr)
			writeErr = app.Append(l)
		}
		if writeErr != nil {
			writeErr = fmt.Errorf("writing %s: %w", e.path, writeErr)
			return
		}
		e.deps.add(used.inputs, used.mixed)
		e.read.add(used.params)
		e.sum.count(l.Status)
		progress.Add(l)
	})
	progress.Finish()
	if err := e.writeManifest(); err != nil && writeErr == nil {
		writeErr = err
	}
	if writeErr == nil {
		writeErr = app.Close()
	}
	return interrupted, writeErr
}

// finish puts results.jsonl in run order and writes the reports, then
// reports what the runs told that the options make an error.
func (e *execution) finish() error {
	if err := results.SortFile(e.path, e.n, func(index int) int { return e.plan.ShardPos(e.shard, index) }); err != nil {
		return err
	}
	e.sum.Mixed, e.sum.Unread = e.man.Mixed, e.man.Unread
	// a [units] or [[plot]] naming nothing the runs recorded is reported
	// last: the reports are written without it, and the checks below
	// still apply
	notes, specErr := report.WriteWith(e.out, report.Options{Runs: e.plan})
	tell(e.opt.Notes, notes)
	if specErr != nil && !errors.Is(specErr, report.ErrSpecs) {
		return specErr
	}
	if len(e.sum.Unread) > 0 && e.opt.StrictParams {
		return fmt.Errorf("%w: %s (--strict-params)", ErrUnreadParams, strings.Join(e.sum.Unread, ", "))
	}
	if len(e.deps.mixed) > e.mixedBefore && !e.opt.AllowMixed {
		return fmt.Errorf("%w during the sweep: %s (recorded in %s's mixed); rerun into a new --out with the files left alone, or add --allow-mixed to accept it", ErrMixed, strings.Join(e.man.Mixed, ", "), ManifestName)
	}
	return specErr
}

// tell gives each note to notes, when there is one to tell.
func tell(notes func(string), each []string) {
	if notes != nil {
		for _, n := range each {
			notes(n)
		}
	}
}

// prepare checks Out against the sweep and returns the shard positions
// of the runs already done there (with --resume), counted in sum,
// leaving results.jsonl holding exactly them. It reads the results file
// as a stream and keeps a bit per run, so a large file costs little
// memory.
func prepare(opt Options, man Manifest, path string, plan *Plan, sum *Summary) (*bitset, *Manifest, error) {
	done := newBitset(man.ShardRuns)
	old, err := readManifest(opt.Out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		old = nil
	case err != nil:
		return nil, nil, err
	}
	count, torn, err := results.Count(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	if old == nil && count == 0 {
		return done, nil, nil
	}
	if old != nil && (old.Hash != man.Hash || old.Shard != man.Shard) {
		return nil, nil, fmt.Errorf("%s holds the results of another sweep (%s, shard %s, hash %.12s; this is %s, shard %s, hash %.12s): choose another --out",
			opt.Out, old.Sweep, old.Shard, old.Hash, man.Sweep, man.Shard, man.Hash)
	}
	if !opt.Resume && !opt.RetryFailed {
		if count == 0 && !torn {
			return done, old, nil
		}
		return nil, nil, fmt.Errorf("%s already holds %d results of this sweep: add --resume to run only what is missing, --retry-failed to also rerun failures, or choose another --out", opt.Out, count)
	}
	kept := 0
	keep := func(l results.Line) (bool, error) {
		pos := plan.ShardPos(man.Shard, l.Index) // a run of the sweep (results.Validate): is it the shard's?
		if pos < 0 {
			return false, fmt.Errorf("%s: run %s (index %d) is not a run of this sweep's shard %s; choose another --out", path, l.ID, l.Index, man.Shard)
		}
		if opt.RetryFailed && l.Status != results.StatusOK {
			return false, nil
		}
		done.set(pos)
		sum.count(l.Status)
		kept++
		return true, nil
	}
	// a line that is no run of the plan is refused (results.Validate),
	// and a run twice (results.DuplicateError), as everywhere: which of
	// its lines is right cannot be told
	if err := results.Filter(path, plan, keep); err != nil {
		return nil, nil, err
	}
	sum.Skipped = kept
	return done, old, nil
}

// bitset is a set of shard positions, a bit each.
type bitset []uint64

func newBitset(n int) *bitset {
	b := make(bitset, (n+63)/64)
	return &b
}

func (b *bitset) has(i int) bool { return (*b)[i/64]&(1<<(i%64)) != 0 }
func (b *bitset) set(i int)      { (*b)[i/64] |= 1 << (i % 64) }

// pool runs the count runs of todo on jobs workers and calls finish, from
// one goroutine, with each finished run as it finishes. It reports
// whether ctx ended first (the runs it interrupted are not passed to
// finish).
// With runsDir set, each finished run's output folder is written there
// (by its worker, before the run counts as finished).
func pool(ctx context.Context, plan *Plan, source []byte, todo iter.Seq[Run], count, jobs int, runsDir string, finish func(Run, results.Line, string, runUse)) (interrupted bool) {
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	jobs = max(1, min(jobs, count))
	next := make(chan Run)
	type done struct {
		run  Run
		line results.Line
		log  string
		used runUse
	}
	out := make(chan done)
	// solo lets a run that failed for memory beside others run again
	// alone: the memory watchdog judges the process's one heap, so a run
	// beside a greedy one may be ended for the other's memory, and its
	// result must not depend on -j. Runs hold it shared; a rerun holds it
	// alone, once the runs in progress have finished.
	var solo sync.RWMutex
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(plan, source)
			w.runOutputs = runsDir != ""
			defer w.close()
			for r := range next {
				solo.RLock()
				res, slow := w.run(ctx, r)
				solo.RUnlock()
				// A plugin that missed its handshake timeout while the run
				// ran may have missed it for the load the other runs make
				// (-j): the run runs again alone, up to startRetries times,
				// so that its result does not depend on -j. A start that
				// still times out alone is the plugin's, and recorded.
				for try := 0; slow && try < startRetries && ctx.Err() == nil; try++ {
					res.Outputs.Close()
					solo.Lock()
					res, slow = w.run(ctx, r)
					solo.Unlock()
				}
				if jobs > 1 && res.Error != nil && res.Error.Kind == runerr.KindMemory {
					res.Outputs.Close()
					solo.Lock()
					res, _ = w.run(ctx, r)
					solo.Unlock()
				}
				if res.Error != nil && res.Error.Kind == runerr.KindInterrupted {
					res.Outputs.Close()
					continue // a partial run: discarded
				}
				line := w.lineOf(r, res)
				if runsDir != "" {
					// A folder without its run's line is what a sweep killed
					// while writing it left: the run is done again, and its
					// folder replaced.
					dir := filepath.Join(runsDir, r.ID)
					err := os.RemoveAll(dir)
					if err == nil {
						err = scenario.WriteResult(dir, scrubbed(res))
					}
					if err != nil {
						if line.Error == nil {
							line.Status = results.StatusError
							line.Error = &results.Error{Kind: "output", Message: "writing the run's output folder: " + err.Error()}
						}
					}
				}
				res.Outputs.Close() // the spooled trace events of its logger sessions
				out <- done{r, line, runLog(res), w.used(res)}
			}
		}()
	}
	go func() {
		defer close(next)
		for r := range todo {
			select {
			case next <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(out)
	}()
	n := 0
	for d := range out {
		finish(d.run, d.line, d.log, d.used)
		n++
	}
	return n < count
}

// tooLong is the line of a run whose own line would be longer than a
// results line may be (err says how long): its metrics, checks and
// message are dropped, and its error says why.
func tooLong(l results.Line, err error) results.Line {
	l.Status = results.StatusError
	l.Metrics, l.Checks, l.Interrupts = map[string]any{}, []results.Check{}, map[string]uint64{}
	l.Error = &results.Error{Kind: "output", Message: err.Error() + "; record fewer or shorter metrics"}
	return l
}

// scrubbed is res as its result.json holds it in a sweep: the same bytes
// whatever worker ran it, so its error without what the process or
// plugin put there that differs each time (results.Scrub); the run's log
// keeps it whole.
func scrubbed(res scenario.Result) scenario.Result {
	if res.Error != nil {
		e := *res.Error
		e.Message, e.Where, e.Traceback = results.Scrub(e.Message), results.Scrub(e.Where), results.Scrub(e.Traceback)
		res.Error = &e
	}
	return res
}

// startRetries is how many times a run during which a plugin start timed
// out runs again, alone.
const startRetries = 2

// runLog is what the log file of a run that did not end ok holds: its
// log, its failed checks and its error with the traceback.
func runLog(res scenario.Result) string {
	var b strings.Builder
	b.WriteString(res.Log)
	for _, c := range res.Failed() {
		fmt.Fprintf(&b, "check failed: %s: %s\n", c.Where, c.Message)
	}
	if res.Error != nil {
		fmt.Fprintf(&b, "%s error: %s\n", res.Error.Kind, res.Error.Detail())
	}
	return b.String()
}

// writeRunLog keeps the log of a run that did not end ok in Out/logs,
// whole or not at all (a temporary file renamed into place).
func writeRunLog(out, id, log string) error {
	dir := filepath.Join(out, "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing the log of run %s: %w", id, err)
	}
	if err := writeFileAtomic(filepath.Join(dir, id+".txt"), []byte(log)); err != nil {
		return fmt.Errorf("writing the log of run %s: %w", id, err)
	}
	return nil
}

// writeFileAtomic writes data to path through a temporary file beside it,
// renamed over path once written and closed, with the mode os.WriteFile
// gives a new file.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// ErrUnreadParams is the error of a sweep with --strict-params where a
// parameter was read by no run.
var ErrUnreadParams = errors.New("no run read the sweep's parameter")

// ErrMixed is the error of a sweep whose runs read two versions of one
// input (a file, a plugin, proflab itself).
var ErrMixed = errors.New("the runs read two versions of their inputs")
