package luavm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/runerr"
)

// Config configures one State.
type Config struct {
	// Dir is the scenario's folder: require looks there first for
	// modules. "" is the current directory.
	Dir string
	// Library is the Lua library require finds besides Dir; its modules
	// are named "scripts/NAME.lua" in messages and tracebacks. nil means
	// none (proflab's module gives the embedded scripts/ library).
	Library fs.FS
	// Seed seeds math.random.
	Seed uint64
	// Log receives the lines of print; nil discards them.
	Log io.Writer
	// MemoryLimit is the run's memory budget in bytes: 0 means
	// DefaultMemoryLimit, a negative value none. The bounded builtins
	// (budget.go) refuse results over it; SetContext puts the run under
	// the heap watchdog (watchdog.go).
	MemoryLimit int64

	// The hooks: what the host module learns from the state, and what it
	// adds to the sandbox's words. Each may be left nil or empty.

	// FileRead is called with the path and content of each module
	// require reads from Dir (not from Library): a file the run depends
	// on besides its chunk.
	FileRead func(path string, content []byte)
	// Ended is called when a chunk Exec runs has ended, whether or not it
	// failed, before Exec returns: the host settles what the script left
	// running.
	Ended func()
	// SandboxAdvice is what the error for reading a left-out global (io,
	// os, load…) tells the script to use instead, in parentheses; ""
	// says that print writes to the run's log and require loads modules.
	SandboxAdvice string
}

// callStackSize is the most nested Lua calls per coroutine.
const callStackSize = 1024

// registrySize is the initial size of a state's (and each coroutine's)
// value stack, and registryStep the step by which it grows on demand up
// to RegistryMaxSize. A start of 20,480 values made every fresh state
// clear 320 KiB, half of a short run's allocation, and a start of 1,024
// still a fifth of a trivial run's (16 KiB; such a run uses tens of
// values), while gopher-lua's default step of 32 values made a deep stack
// reallocate thousands of times.
const (
	registrySize = 256
	registryStep = 1024
)

// State is one sandboxed Lua state, for one run. It must be used by one
// goroutine at a time (ActiveCall and Stop excepted) and closed after
// use.
type State struct {
	// L is the state. Bindings may use it; callers should prefer Exec.
	L *lua.LState

	cfg    Config
	pcg    *rand.PCG
	rng    *rand.Rand
	bugs   []*runerr.Error
	trace  string                 // traceback captured by the message handler
	active *lua.LState            // the state (main or coroutine) of the binding running now
	call   atomic.Pointer[string] // the name of the binding running now (ActiveCall)

	ctx    context.Context         // the run's context (SetContext), also ended by Stop
	cancel context.CancelCauseFunc // ends ctx with a cause
	closed bool

	ids         stableIDs      // stable names of reference values (stableid.go)
	unwatch     func()         // takes the run off the memory watchdog
	budgetError *runerr.Error  // the first budget refusal, which fails the run even if caught
	resumeDepth int            // coroutines resumed inside one another
	noop        *lua.LFunction // does nothing: protected calls check the call stack's room with it (protected.go)

	preloaded []string              // the names Preload gave, in order
	loaded    map[string]lua.LValue // require's cache
	loading   []string              // require's stack, for loop detection
	libChunks map[string]bool       // chunk names of library modules

	lazyIndex, lazyNewIndex *lua.LFunction // the lazy tables' metamethods, made with the first (lazy.go)
}

// New makes a fresh sandboxed state: the base, table, string, math and
// coroutine libraries only (no load, loadstring, loadfile, dofile, module;
// no os, io, debug or package), print sent to cfg.Log, math.random seeded
// from cfg.Seed, the u64 type, and require finding cfg.Dir, then
// cfg.Library.
func New(cfg Config) *State {
	s := &State{
		cfg:       cfg,
		loaded:    map[string]lua.LValue{},
		libChunks: map[string]bool{},
		unwatch:   func() {},
	}
	if s.cfg.Log == nil {
		s.cfg.Log = io.Discard
	}
	s.L = lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       callStackSize,
		IncludeGoStackTrace: true, // the Lua stack at a call stack overflow, for its file:line
		MinimizeStackMemory: true,
		RegistrySize:        registrySize, // grows as needed, up to RegistryMaxSize
		RegistryGrowStep:    registryStep,
		RegistryMaxSize:     1024 * 1024,
	})
	s.ctx, s.cancel = context.WithCancelCause(context.Background())
	s.L.SetContext(s.ctx)
	states.Store(s.L.G, s)
	s.openSandbox()
	s.L.SetGlobal("require", s.fn("require", s.require))
	return s
}

// Close ends the state's context and releases the state. It is
// idempotent.
func (s *State) Close() {
	if s.closed {
		return
	}
	s.closed = true
	states.Delete(s.L.G)
	s.unwatch()
	s.cancel(nil)
	s.L.Close()
}

// SetContext bounds everything the state runs afterwards by ctx: when ctx
// ends, the running script stops with an error at its next instruction.
// It also puts the run under the memory watchdog (watchdog.go) until
// Close. Call it before Exec.
func (s *State) SetContext(ctx context.Context) {
	s.cancel(nil)
	s.unwatch()
	s.ctx, s.cancel = context.WithCancelCause(ctx)
	s.L.SetContext(s.ctx)
	s.unwatch = heapWatch.watch(s.memoryLimit(), s.cancel)
}

// Context is the run's context: SetContext's, also ended by Stop and by
// the memory watchdog (its cause a *MemoryBudgetError).
func (s *State) Context() context.Context { return s.ctx }

// Stop ends the run's context with cause (nil: context.Canceled): the
// running script stops at its next instruction, and
// context.Cause(s.Context()) says why. It may be called from any
// goroutine: a host watching something the run depends on (a plugin
// process) stops the run through it.
func (s *State) Stop(cause error) { s.cancel(cause) }

// Preload makes require(name) return v, before any file of that name.
// The module-not-found error lists the preloaded names first.
func (s *State) Preload(name string, v lua.LValue) {
	if _, ok := s.loaded[name]; !ok {
		s.preloaded = append(s.preloaded, name)
	}
	s.loaded[name] = v
}

// BudgetFailure returns why the run exceeded a budget of the
// interpreter, or nil: a builtin refused a result over the memory budget,
// coroutines nested too deep or the heap watchdog ended the run (kind
// memory), or the call stack overflowed (kind lua). It fails the run
// (exit status 1) even when the script caught the error.
func (s *State) BudgetFailure() *runerr.Error {
	if s.budgetError != nil {
		return s.budgetError
	}
	var m *MemoryBudgetError
	if errors.As(context.Cause(s.ctx), &m) {
		return &runerr.Error{Kind: runerr.KindMemory, Message: m.Error()}
	}
	return nil
}

// Bug returns the first proflab bug (a recovered Go panic, or one a
// binding recorded) of the run, or nil. A bug fails the run even when the
// script caught the error.
func (s *State) Bug() *runerr.Error {
	if len(s.bugs) == 0 {
		return nil
	}
	return s.bugs[0]
}

// RecordBug records a bug in proflab that a binding found (a model's
// consistency check failed): it fails the run (exit status 4) even when
// the script catches the Lua error the binding raises with it.
func (s *State) RecordBug(e *runerr.Error) { s.bugs = append(s.bugs, e) }

// Active is the state (the main one, or a coroutine's) of the binding
// running now: a Lua callback the host calls from inside a binding runs
// there.
func (s *State) Active() *lua.LState { return s.active }

// Log writes one line to the run's log.
func (s *State) Log(line string) {
	fmt.Fprintln(s.cfg.Log, line)
}
