package luart

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/scripts"
)

// Config configures one Runtime.
type Config struct {
	// Outputs, when set, registers the machines (with their simulators)
	// and kernel logger sessions the run makes, for its output files.
	Outputs *output.Registry
	// Dir is the scenario's folder: require looks there for modules, and
	// relative paths given to the API resolve from there. "" is the
	// current directory.
	Dir string
	// Params fills lab.params (nil: an empty table). Values are float64,
	// int64, uint64, int, bool, string, []any and map[string]any.
	Params map[string]any
	// Seed seeds math.random and is the default seed of machines.
	Seed uint64
	// Log receives the lines of print and lab.log; nil discards them.
	Log io.Writer
	// Library is the Lua library require finds besides the scenario's
	// folder; nil means the embedded scripts/ library.
	Library fs.FS
	// HALs opens machines' HALs from their hal = {...} names; nil means
	// the shipped HALs in-process (lab.ShippedInproc).
	HALs lab.HALProvider
	// Machine, when set, is the configuration's [machine] table, the
	// defaults of lab.machine{...}'s fields; nil means the embedded
	// default configuration's (lua-api.md's defaults).
	Machine *config.Machine
	// MemoryLimit is the run's memory budget in bytes: 0 means
	// DefaultMemoryLimit, a negative value none. The bounded builtins
	// (budget.go) refuse results over it; SetContext puts the run under
	// the heap watchdog (watchdog.go).
	MemoryLimit int64
	// Workloads keeps the workload files m:run and m:images read, parsed
	// once for all the runs that share it; nil parses a file every time
	// it is named.
	Workloads *importer.Cache
}

// Check is one lab.check call.
type Check struct {
	Passed  bool   `json:"passed"`
	Where   string `json:"where"` // "scenarios/x.lua:12"
	Message string `json:"message"`
}

// callStackSize is the most nested Lua calls per coroutine.
const callStackSize = 1024

// registrySize is the initial size of a state's (and each coroutine's)
// value stack, and the step by which it grows on demand up to
// RegistryMaxSize. A start of 20,480 values made every fresh state clear
// 320 KiB, half of a short run's allocation, while gopher-lua's default
// step of 32 values made a deep stack reallocate thousands of times.
const registrySize = 1024

// Runtime is one sandboxed Lua state with the proflab module, for one run.
// It must be used by one goroutine at a time and closed after use.
type Runtime struct {
	// L is the state. Bindings may use it; callers should prefer Exec.
	L *lua.LState

	cfg     Config
	lib     fs.FS
	pcg     *rand.PCG
	rng     *rand.Rand
	lab     *lua.LTable
	machIdx *lua.LTable // the machine methods, for Bindings; nil until objectTypes
	checks  []Check
	warned  map[string]bool // warnImport's: the contents warned of
	records map[string]any
	bugs    []*runerr.Error
	trace   string                 // traceback captured by the message handler
	active  *lua.LState            // the state (main or coroutine) of the binding running now
	call    atomic.Pointer[string] // the name of the binding running now (ActiveCall)

	defaultHALs    lab.HALProvider // the shipped HALs in-process, when cfg.HALs is nil
	defaultMachine *config.Machine // the default configuration's [machine], when cfg.Machine is nil

	ctx    context.Context         // the run's context (SetContext), also ended by a plugin's death
	cancel context.CancelCauseFunc // ends ctx; a *pluginDeath cause says which plugin died

	pluginFailure *runerr.Error // the first HAL failure, which fails the run as a plugin error
	releases      []func()      // release machines' HALs at Close
	labs          []*lab.Lab    // the machines' labs, settled when the script ends
	closed        bool

	ids         stableIDs     // stable names of reference values (stableid.go)
	unwatch     func()        // takes the run off the memory watchdog
	budgetError *runerr.Error // the first budget refusal, which fails the run even if caught
	resumeDepth int           // coroutines resumed inside one another

	params      *lua.LTable           // the run's parameters, behind lab.params (lab_params.go)
	paramsProxy *lua.LTable           // lab.params
	paramsRead  map[string]bool       // the parameters the scenario read
	inputs      map[string]string     // files read, by absolute path: sha256 (inputs.go)
	loaded      map[string]lua.LValue // require's cache
	loading     []string              // require's stack, for loop detection
	libChunks   map[string]bool       // chunk names of library modules
}

// New makes a fresh sandboxed state: the base, table, string, math and
// coroutine libraries only (no load, loadstring, loadfile, dofile, module;
// no os, io, debug or package), print sent to cfg.Log, math.random seeded
// from cfg.Seed, require finding the library and cfg.Dir, and the proflab
// module.
func New(cfg Config) *Runtime {
	rt := &Runtime{
		cfg:       cfg,
		lib:       cfg.Library,
		records:   map[string]any{},
		loaded:    map[string]lua.LValue{},
		libChunks: map[string]bool{},
		unwatch:   func() {},
	}
	if rt.lib == nil {
		rt.lib = scripts.FS
	}
	if rt.cfg.Log == nil {
		rt.cfg.Log = io.Discard
	}
	rt.L = lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       callStackSize,
		IncludeGoStackTrace: true, // the Lua stack at a call stack overflow, for its file:line
		MinimizeStackMemory: true,
		RegistrySize:        registrySize, // grows as needed, up to RegistryMaxSize
		RegistryGrowStep:    registrySize,
		RegistryMaxSize:     1024 * 1024,
	})
	rt.ctx, rt.cancel = context.WithCancelCause(context.Background())
	rt.L.SetContext(rt.ctx)
	rt.openSandbox()
	rt.registerU64(rt.L)
	rt.lab = rt.newLabModule()
	rt.loaded["proflab"] = rt.lab
	rt.L.SetGlobal("require", rt.fn("require", rt.require))
	return rt
}

// settleHALs reads the answers of the HAL calls the machines sent without
// waiting and no run settled (a profile stopped after the last run): a
// failure among them fails the run as a HAL failure (exit status 3).
func (rt *Runtime) settleHALs() {
	for _, l := range rt.labs {
		if err := l.Settle(); err != nil && rt.pluginFailure == nil {
			rt.pluginFailure = &runerr.Error{Kind: runerr.KindPlugin, Message: "when the scenario ended: " + err.Error()}
		}
	}
}

// Close releases the machines' HALs and the state. It is idempotent.
func (rt *Runtime) Close() {
	if rt.closed {
		return
	}
	rt.closed = true
	rt.unwatch()
	rt.cancel(nil) // stops the plugin watchers before the HALs are released
	for i := len(rt.releases) - 1; i >= 0; i-- {
		rt.releases[i]()
	}
	rt.releases = nil
	rt.L.Close()
}

// SetContext bounds everything the state runs afterwards by ctx: when ctx
// ends, the running script stops with an error at its next instruction,
// and a HAL plugin call in flight returns. It also puts the run under the
// memory watchdog (watchdog.go) until Close. Call it before Exec.
func (rt *Runtime) SetContext(ctx context.Context) {
	rt.cancel(nil)
	rt.unwatch()
	rt.ctx, rt.cancel = context.WithCancelCause(ctx)
	rt.L.SetContext(rt.ctx)
	rt.unwatch = heapWatch.watch(rt.memoryLimit(), rt.cancel)
}

// BudgetFailure returns why the run exceeded its memory budget, or nil: a
// builtin refused a result over the budget, coroutines nested too deep, or
// the heap watchdog ended the run. It fails the run (exit status 1) even
// when the script caught the error.
func (rt *Runtime) BudgetFailure() *runerr.Error {
	if rt.budgetError != nil {
		return rt.budgetError
	}
	var m *MemoryBudgetError
	if errors.As(context.Cause(rt.ctx), &m) {
		return &runerr.Error{Kind: runerr.KindMemory, Message: m.Error()}
	}
	return nil
}

// Context is the run's context: SetContext's, also ended when a HAL plugin
// process dies.
func (rt *Runtime) Context() context.Context { return rt.ctx }

// Lab is the proflab module table (for bindings that add to it).
func (rt *Runtime) Lab() *lua.LTable { return rt.lab }

// Seed is the run's seed.
func (rt *Runtime) Seed() uint64 { return rt.cfg.Seed }

// Resolve turns a path given to the API into a file path: relative paths
// are taken from the scenario's folder.
func (rt *Runtime) Resolve(path string) string {
	if filepath.IsAbs(path) || rt.cfg.Dir == "" {
		return path
	}
	return filepath.Join(rt.cfg.Dir, path)
}

// Checks returns the checks recorded so far, in order.
func (rt *Runtime) Checks() []Check { return append([]Check(nil), rt.checks...) }

// Records returns the merged lab.record values.
func (rt *Runtime) Records() map[string]any {
	out := make(map[string]any, len(rt.records))
	for k, v := range rt.records {
		out[k] = v
	}
	return out
}

// Bug returns the first proflab bug (a recovered Go panic) of the run, or
// nil. A bug fails the run even when the script caught the error.
func (rt *Runtime) Bug() *runerr.Error {
	if len(rt.bugs) == 0 {
		return nil
	}
	return rt.bugs[0]
}

// PluginFailure returns the first HAL failure of the run, or nil. It
// fails the run (exit status 3) even when the script caught the error.
func (rt *Runtime) PluginFailure() *runerr.Error {
	if rt.pluginFailure == nil {
		var d *pluginDeath
		if errors.As(context.Cause(rt.ctx), &d) {
			return &runerr.Error{Kind: runerr.KindPlugin, Message: d.Error()}
		}
	}
	return rt.pluginFailure
}

// logLine writes one line to the run log.
func (rt *Runtime) logLine(s string) {
	fmt.Fprintln(rt.cfg.Log, s)
}

// objectTypes registers the metatables of machines, processes, threads,
// kernel callers and logger sessions, once per state, when the first
// machine is made: a run that makes none (a sweep's bookkeeping run)
// does not pay for them.
func (rt *Runtime) objectTypes() {
	if rt.machIdx != nil {
		return
	}
	rt.registerMachine(rt.L)
	rt.registerCaller(rt.L)
	rt.registerSession(rt.L)
}
