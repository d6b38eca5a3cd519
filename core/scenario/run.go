package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/luart"
	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/version"
	"github.com/proflab/proflab/core/workload/importer"
)

// maxKeptLog bounds Result.Log (the live Log writer gets everything).
const maxKeptLog = 4 << 20

// errBudget is the cause of a run's context when its budget runs out.
var errBudget = errors.New("time budget exceeded")

// Run runs one scenario in a fresh Lua state and returns what it produced.
// It never panics: a Go panic anywhere in the run becomes an Error of kind
// bug. The run stops early when ctx ends (kind interrupted) or when the
// budget runs out (kind timeout).
func Run(ctx context.Context, opt Options) (res Result) {
	start := time.Now()
	res = Result{ProflabVersion: version.String(), Plugins: opt.Setup.Plugins, Scenario: opt.File, Seed: opt.Seed, Params: opt.Params, Records: map[string]any{}, Checks: []Check{},
		budget: budget{timeout: opt.budget(), memory: opt.memory()}}
	if res.Params == nil {
		res.Params = map[string]any{}
	}
	defer func() {
		if r := recover(); r != nil {
			res.Error = &Error{
				Kind:    runerr.KindBug,
				Message: fmt.Sprintf("proflab bug while running %s: %v (a bug in proflab, not in the scenario; please report it)", opt.File, r),
				GoStack: string(debug.Stack()),
			}
		}
		res.Status = res.status()
		res.Timings.Wall = time.Since(start)
		res.Timings.WallSeconds = res.Timings.Wall.Seconds()
	}()

	src, e := scenarioSource(opt)
	if e != nil {
		res.Error = e
		return res
	}

	if budget := opt.budget(); budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, budget, errBudget)
		defer cancel()
	}
	logs := &cappedBuffer{max: maxKeptLog}
	var w io.Writer = logs
	if opt.Log != nil {
		w = io.MultiWriter(opt.Log, logs)
	}
	lw := &lockedWriter{w: w} // plugin log lines arrive from other goroutines
	hals, release, e := runHALs(opt, lw)
	if e != nil {
		res.Error = e
		return res
	}
	defer release()
	if hals != nil {
		served := &servedBy{HALProvider: hals}
		hals = served
		defer func() { res.Plugins = served.plugins(opt.Setup.Plugins) }()
	}
	res.Outputs, res.Config = &output.Registry{}, opt.Setup.Config
	rt := luart.New(luart.Config{
		Outputs: res.Outputs,
		Dir:     filepath.Dir(opt.File),
		Params:  opt.Params,
		Seed:    opt.Seed,
		Log:     lw,
		HALs:    hals,
		Machine: opt.Setup.Machine,

		MemoryLimit:  opt.Memory,
		Workloads:    workloads,
		Prepared:     prepared,
		WorkloadDirs: opt.WorkloadDirs,
	})
	rt.SetContext(ctx)

	err, abandoned := execBounded(rt, chunkName(opt.File), src)
	if abandoned {
		// The state is still busy in a builtin that ignores cancellation:
		// leave it, its machines and its goroutine alone (it stops at its
		// next instruction if the builtin ever returns).
		lw.mu.Lock()
		res.Log = logs.String()
		lw.mu.Unlock()
		res.Outputs.Close() // its spools; the outputs of a stuck state are not written
		res.Outputs = nil
		res.Error = abandonedError(ctx, opt, rt.Context(), rt.ActiveCall())
		return res
	}
	defer rt.Close()
	if !opt.NoOutputFolder {
		res.Outputs.Capture() // the profiles' intervals, while the HALs still run
	}
	res.Checks = append(res.Checks, rt.Checks()...)
	res.Records = rt.Records()
	res.Inputs = rt.Inputs()
	res.InputVersions = rt.InputVersions()
	res.Imports = rt.Imports()
	res.ParamsRead = rt.ParamsRead()
	lw.mu.Lock()
	res.Log = logs.String()
	lw.mu.Unlock()
	res.Error = finalError(ctx, opt, err, rt.Bug(), rt.BudgetFailure(), rt.PluginFailure(), rt.InputFailure())
	if res.Error != nil && res.Error.Where == "" {
		res.Error.Where = errorWhere(res.Error)
	}
	res.Machines = output.Summarize(res.Outputs).Machines
	return res
}

// workloads keeps the workload files this process's runs read (a
// scenario's m:run calls, a sweep's runs on every worker): each is parsed
// or imported once, while its content stays the same.
var workloads = importer.NewCache(256 << 20)

// prepared keeps what this process's runs derive from those workload
// files before any simulated time (resolution, classes): each is
// prepared once, while its content stays the same.
var prepared = sim.NewCache(256 << 20)

// scenarioSource is the scenario's text: Options.Source, or its file.
func scenarioSource(opt Options) ([]byte, *Error) {
	if opt.Source != nil {
		return opt.Source, nil
	}
	b, err := input.ReadFile(input.Scenario, opt.File)
	if input.Refused(err) {
		return nil, &Error{Kind: runerr.KindInput, Message: err.Error()}
	}
	if err != nil {
		return nil, &Error{Kind: runerr.KindInput, Message: fmt.Sprintf("cannot read the scenario: %v", err)}
	}
	return b, nil
}

// runHALs is the run's HAL provider (Options.HALs, or one made from the
// setup for this run), its plugins' log lines sent to log; release undoes
// what runHALs did.
func runHALs(opt Options, log io.Writer) (hals lab.HALProvider, release func(), e *Error) {
	hals, release = opt.HALs, func() {}
	if hals == nil && opt.Setup.NewHALs != nil {
		h, closeHALs, err := opt.Setup.NewHALs()
		if err != nil {
			return nil, nil, &Error{Kind: runerr.KindPlugin, Message: fmt.Sprintf("cannot prepare the HALs: %v", err)}
		}
		hals, release = h, closeHALs
	}
	if ls, ok := hals.(interface{ SetLog(io.Writer) }); ok {
		ls.SetLog(log)
		closeHALs := release
		release = func() { ls.SetLog(nil); closeHALs() }
	}
	return hals, release, nil
}

// abandonGrace is how long a run may go on after its context ended (time
// budget, Ctrl-C, memory budget, a plugin's death) before Run gives up on
// it: long enough for any binding to notice, short enough that proflab
// always ends promptly.
const abandonGrace = 3 * time.Second

// execBounded runs the scenario on its own goroutine and waits for it, or,
// once the run's context has ended, for abandonGrace more. A call that
// works in Go without looking at the context (the long builtins of
// core/luavm do look at it) cannot hold the run: execBounded then reports it abandoned and
// leaves the goroutine to finish on its own.
func execBounded(rt *luart.Runtime, name string, src []byte) (err *Error, abandoned bool) {
	done := make(chan *Error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- &Error{Kind: runerr.KindBug, Message: fmt.Sprintf("proflab bug while running %s: %v (please report it)", name, r), GoStack: string(debug.Stack())}
			}
		}()
		done <- rt.Exec(name, src)
	}()
	select {
	case err := <-done:
		return err, false
	case <-rt.Context().Done():
	}
	select {
	case err := <-done:
		return err, false
	case <-time.After(abandonGrace):
		return nil, true
	}
}

// abandonedError is the error of a run abandoned by execBounded: why its
// context ended, and that it had to be abandoned.
func abandonedError(ctx context.Context, opt Options, runCtx context.Context, call string) *Error {
	var e *Error
	var m *luavm.MemoryBudgetError
	switch {
	case ctx.Err() != nil:
		e = finalError(ctx, opt, nil, nil, nil, nil, nil)
	case errors.As(context.Cause(runCtx), &m):
		e = &Error{Kind: runerr.KindMemory, Message: m.Error()}
	default:
		e = &Error{Kind: runerr.KindPlugin, Message: fmt.Sprint(context.Cause(runCtx))}
	}
	inside := "a builtin call that cannot be interrupted (a call into a HAL plugin, say)"
	if call != "" {
		inside = call + ", a builtin call that could not be interrupted,"
	}
	e.Message += fmt.Sprintf("; the scenario was inside %s and was abandoned %s later", inside, formatDuration(abandonGrace))
	return e
}

// finalError decides the run's error: the time budget or a cancellation
// wins over whatever the script saw (it may have caught the error), then a
// proflab bug, then the memory budget (or a stack overflow), then a HAL
// plugin failure, then an input file the scenario named that could not be
// read (each of which may have surfaced as a Lua error, or been caught),
// then the script's own error.
func finalError(ctx context.Context, opt Options, err, bug, memory, plugin, input *Error) *Error {
	if ctx.Err() != nil {
		where := ""
		if err != nil {
			where = luavm.WherePrefix(err.Message)
		}
		e := &Error{Kind: runerr.KindInterrupted, Message: where + "scenario interrupted"}
		if errors.Is(context.Cause(ctx), errBudget) {
			e = &Error{Kind: runerr.KindTimeout, Message: fmt.Sprintf("%sscenario exceeded its time budget of %s (--timeout)", where, formatDuration(opt.budget()))}
		}
		if err != nil {
			e.Traceback = err.Traceback
		}
		return e
	}
	switch {
	case err != nil && err.Kind == runerr.KindBug:
		return err
	case bug != nil:
		return bug
	case memory != nil:
		if err != nil {
			if memory.Message == err.Message || strings.HasSuffix(err.Message, memory.Message) {
				memory.Message = err.Message
			} else if w := luavm.WherePrefix(err.Message); w != "" && luavm.WherePrefix(memory.Message) == "" {
				memory.Message = w + memory.Message
			}
			memory.Traceback = err.Traceback
		}
		return memory
	case plugin != nil:
		if err != nil {
			plugin.Traceback = err.Traceback
		}
		return plugin
	case input != nil:
		if err != nil {
			input.Traceback = err.Traceback
		}
		return input
	}
	return err
}

// errorWhere is the file:line an error was raised at: its message's
// prefix, else the first Lua frame of its traceback, else "".
func errorWhere(e *Error) string {
	if w := luavm.WherePrefix(e.Message); w != "" {
		return strings.TrimSuffix(w, ": ")
	}
	for _, line := range strings.Split(e.Traceback, "\n") {
		line = strings.TrimSpace(line)
		if w := luavm.WherePrefix(line); w != "" && !strings.HasPrefix(line, "[Go]") {
			return strings.TrimSuffix(w, ": ")
		}
	}
	return ""
}

// chunkName is how messages name the scenario: its path as given, with
// forward slashes so that messages read the same everywhere.
func chunkName(file string) string {
	if file == "" {
		return "scenario"
	}
	return filepath.ToSlash(filepath.Clean(file))
}

// formatDuration shows a budget as people write it ("30s", "2m", "1m30s").
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// cappedBuffer keeps at most max bytes, then notes the truncation.
type cappedBuffer struct {
	b         strings.Builder
	max       int
	truncated bool
}

// Write implements io.Writer; it never fails.
func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		if len(p) > room {
			c.b.Write(p[:room])
			c.truncated = true
		} else {
			c.b.Write(p)
		}
	} else if len(p) > 0 {
		c.truncated = true
	}
	return len(p), nil
}

// String returns what was kept.
func (c *cappedBuffer) String() string {
	if c.truncated {
		return c.b.String() + "\n[log truncated]\n"
	}
	return c.b.String()
}
