package luart

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/sim"
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
	// folder; nil means the embedded scripts/ library (scripts.FS).
	Library fs.FS
	// HALs opens machines' HALs from their hal = {...} names; nil means
	// the shipped HALs in-process (lab.ShippedInproc).
	HALs lab.HALProvider
	// Machine, when set, is the configuration's [machine] table, the
	// defaults of lab.machine{...}'s fields; nil means the embedded
	// default configuration's (the defaults of docs/scenario-api.md,
	// "lab.machine").
	Machine *config.Machine
	// MemoryLimit is the run's memory budget in bytes: 0 means
	// luavm.DefaultMemoryLimit, a negative value none (luavm.Config).
	MemoryLimit int64
	// Workloads keeps the workload files m:run and m:images read, parsed
	// once for all the runs that share it; nil parses a file every time
	// it is named.
	Workloads *importer.Cache
	// Prepared keeps what m:run derives from the workload files it reads
	// (their resolution and classes), by content, for all the runs that
	// share it; nil prepares a workload at every m:run.
	Prepared *sim.Cache
	// WorkloadDirs are the folders besides Dir that the scenario may read
	// workload files from (--workload-dir, [run] workload_dirs); a path
	// outside Dir and them is refused (workload_path.go).
	WorkloadDirs []string
}

// Check is one lab.check call.
type Check struct {
	Passed  bool   `json:"passed"`
	Where   string `json:"where"` // "scenarios/x.lua:12"
	Message string `json:"message"`
}

// sandboxAdvice is what the sandbox's refusal of a left-out global (io,
// os, load…) tells a scenario to use instead.
const sandboxAdvice = "print and lab.log write to the run's log; lab.params holds the run's parameters; require loads modules"

// Runtime is the sandboxed interpreter (a luavm.State, embedded: Exec,
// SetContext, the budgets and the errors are its) with the proflab module
// loaded, for one run. It must be used by one goroutine at a time and
// closed after use.
type Runtime struct {
	*luavm.State

	cfg     Config
	lab     *lua.LTable
	machIdx *lua.LTable // the machine methods, for Bindings; nil until objectTypes
	checks  []Check
	warned  map[string]bool // warnImport's: the contents warned of
	records map[string]any

	defaultHALs    lab.HALProvider // the shipped HALs in-process, when cfg.HALs is nil
	defaultMachine *config.Machine // the default configuration's [machine], when cfg.Machine is nil

	pluginFailure *runerr.Error // the first HAL failure, which fails the run as a plugin error
	inputFailure  *runerr.Error // the first input that could not be read, which fails the run as bad input
	releases      []func()      // release machines' HALs at Close
	labs          []*lab.Lab    // the machines' labs, settled when the script ends
	closed        bool

	params        *lua.LTable          // the run's parameters, behind lab.params (lab_params.go)
	paramsProxy   *lua.LTable          // lab.params
	paramsRead    map[string]bool      // the parameters the scenario read
	inputs        map[string]string    // files read, by absolute path: sha256 (inputs.go)
	inputVersions map[string][]string  // files read in several versions: their sha256s (inputs.go)
	imports       []*importer.Imported // profiles imported as workloads, in order (inputs.go)
}

// New makes a fresh sandboxed state (luavm.New: the base, table, string,
// math and coroutine libraries only, print sent to cfg.Log, math.random
// seeded from cfg.Seed, require finding the library and cfg.Dir) with the
// proflab module, which require("proflab") returns.
func New(cfg Config) *Runtime {
	rt := &Runtime{cfg: cfg, records: map[string]any{}}
	lib := cfg.Library
	if lib == nil {
		lib = scripts.FS
	}
	rt.State = luavm.New(luavm.Config{
		Dir:           cfg.Dir,
		Library:       lib,
		Seed:          cfg.Seed,
		Log:           cfg.Log,
		MemoryLimit:   cfg.MemoryLimit,
		FileRead:      rt.noteInput,
		Ended:         rt.settleHALs,
		SandboxAdvice: sandboxAdvice,
	})
	rt.installParamsIteration()
	rt.lab = rt.newLabModule()
	rt.Preload("proflab", rt.lab)
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
	rt.Stop(nil) // stops the plugin watchers before the HALs are released
	for i := len(rt.releases) - 1; i >= 0; i-- {
		rt.releases[i]()
	}
	rt.releases = nil
	rt.State.Close()
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

// PluginFailure returns the first HAL failure of the run, or nil. It
// fails the run (exit status 3) even when the script caught the error.
func (rt *Runtime) PluginFailure() *runerr.Error {
	if rt.pluginFailure == nil {
		var d *pluginDeath
		if errors.As(context.Cause(rt.Context()), &d) {
			return &runerr.Error{Kind: runerr.KindPlugin, Message: d.Error()}
		}
	}
	return rt.pluginFailure
}

// InputFailure returns the first input file the scenario named that
// could not be read (a workload file missing, unreadable, or outside the
// folders it may read), or nil. It fails the run as bad input (exit
// status 2) even when the script caught the error.
func (rt *Runtime) InputFailure() *runerr.Error { return rt.inputFailure }

// raiseInput raises the error of an input file that could not be read,
// as m:run's field error, and records it (InputFailure).
func (rt *Runtime) raiseInput(f *luavm.Fields, field string, err error) {
	if rt.inputFailure == nil {
		rt.inputFailure = &runerr.Error{Kind: runerr.KindInput, Message: fmt.Sprintf("%s: %s{...}: field %q: %v", rt.CallerWhere(f.L), f.Fn, field, err)}
	}
	f.Errorf(field, "%v", err)
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

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
