package luart

import (
	"context"
	"fmt"
	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/output"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/runerr"
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
}

// Check is one lab.check call.
type Check struct {
	Passed  bool   `json:"passed"`
	Where   string `json:"where"` // "scenarios/x.lua:12"
	Message string `json:"message"`
}

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
	machIdx *lua.LTable // the machine methods, for Bindings
	checks  []Check
	records map[string]any
	bugs    []*runerr.Error
	trace   string      // traceback captured by the message handler
	active  *lua.LState // the state (main or coroutine) of the binding running now

	defaultHALs    lab.HALProvider // the shipped HALs in-process, when cfg.HALs is nil
	defaultMachine *config.Machine // the default configuration's [machine], when cfg.Machine is nil

	pluginFailure *runerr.Error // the first HAL failure, which fails the run as a plugin error
	releases      []func()      // release machines' HALs at Close
	closed        bool

	loaded    map[string]lua.LValue // require's cache
	loading   []string              // require's stack, for loop detection
	libChunks map[string]bool       // chunk names of library modules
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
	}
	if rt.lib == nil {
		rt.lib = scripts.FS
	}
	if rt.cfg.Log == nil {
		rt.cfg.Log = io.Discard
	}
	rt.L = lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       1024,
		MinimizeStackMemory: true,
		RegistrySize:        1024 * 20,
		RegistryMaxSize:     1024 * 1024,
	})
	rt.openSandbox()
	rt.registerU64(rt.L)
	rt.registerMachine(rt.L)
	rt.registerCaller(rt.L)
	rt.registerSession(rt.L)
	rt.lab = rt.newLabModule()
	rt.loaded["proflab"] = rt.lab
	rt.L.SetGlobal("require", rt.fn("require", rt.require))
	return rt
}

// Close releases the machines' HALs and the state. It is idempotent.
func (rt *Runtime) Close() {
	if rt.closed {
		return
	}
	rt.closed = true
	for i := len(rt.releases) - 1; i >= 0; i-- {
		rt.releases[i]()
	}
	rt.releases = nil
	rt.L.Close()
}

// SetContext bounds everything the state runs afterwards by ctx: when ctx
// ends, the running script stops with an error at its next instruction.
func (rt *Runtime) SetContext(ctx context.Context) { rt.L.SetContext(ctx) }

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
func (rt *Runtime) PluginFailure() *runerr.Error { return rt.pluginFailure }

// logLine writes one line to the run log.
func (rt *Runtime) logLine(s string) {
	fmt.Fprintln(rt.cfg.Log, s)
}
