// Package halhost is the host side of HAL plugins: it finds plugin
// executables, verifies their sha256, starts one process per HAL and keeps
// it for the worker's lifetime (reused across runs and machines), opens one
// HAL instance per machine, and adapts each to the kernel's view of a HAL,
// kernel.HALDispatch ([MachineHAL]), with the machine's simulated
// [Hardware] receiving the programming. A crash, hang or nonsense answer becomes an error naming
// the HAL and the call, failing that run only; [Host.Close] kills every
// process it started.
//
// One Host serves one worker: its plugin processes are not shared with
// other workers, and nothing here is global, so hosts can run side by side.
package halhost

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
)

// Options configure a Host.
type Options struct {
	// Search finds plugin executables (DefaultSearch() if zero).
	Search *Search
	// Logger receives the plugins' stderr and their programming's log
	// lines, with a "hal" attribute (nil discards).
	Logger *slog.Logger
}

// Host starts and owns the HAL plugin processes of one worker.
type Host struct {
	hals   map[string]config.HAL
	search Search
	log    *slog.Logger

	mu      sync.Mutex
	clients map[string]*halrpc.Client // by HAL name
	closed  bool

	described descriptions // what configured instances described

	startTimeouts atomic.Int64 // starts that did not complete their handshake in time
}

// maxStarts is how many plugin processes this process starts at once,
// over all its hosts: a sweep's workers starting theirs all together
// would make each start slow enough to miss its handshake timeout. A
// start waits for its turn before its start budget begins.
var maxStarts = max(2, runtime.NumCPU())

// starts are the turns to start a plugin (maxStarts of them).
var starts = make(chan struct{}, maxStarts)

// startSlot waits for a turn to start a plugin, until ctx ends, and
// returns the function that gives the turn back.
func startSlot(ctx context.Context) (release func(), err error) {
	select {
	case starts <- struct{}{}:
		return func() { <-starts }, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// StartTimeouts is the number of the host's plugin starts that did not
// complete their handshake in time (halrpc.ErrStartTimeout). On a busy
// machine that is the machine's fault, not the run's: a sweep runs a run
// during which one happened again (package sweep).
func (h *Host) StartTimeouts() int64 { return h.startTimeouts.Load() }

// New returns a host for the configured HALs. Nothing starts until a HAL
// is opened.
func New(hals map[string]config.HAL, opts Options) *Host {
	h := &Host{hals: make(map[string]config.HAL, len(hals)), clients: map[string]*halrpc.Client{}, log: opts.Logger}
	for k, v := range hals {
		h.hals[k] = v
	}
	if opts.Search != nil {
		h.search = *opts.Search
	} else {
		h.search = DefaultSearch()
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	return h
}

// ConfigureError is a HAL's refusal of its configure call: settings it
// rejects, or a machine it cannot serve.
type ConfigureError struct {
	HAL   string // the HAL's config name
	Where string // "plugin /path" or "in-process"
	Err   error
}

func (e *ConfigureError) Error() string {
	return fmt.Sprintf("hal %q (%s): configure: %v", e.HAL, e.Where, e.Err)
}

func (e *ConfigureError) Unwrap() error { return e.Err }

// ErrClosed is returned by a closed Host.
var ErrClosed = errors.New("halhost: host is closed")

// client returns the running process for HAL name, starting (or
// restarting, after a crash or hang) it if needed.
func (h *Host) client(ctx context.Context, name string, spec config.HAL) (*halrpc.Client, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	if c := h.clients[name]; c != nil && !c.Exited() {
		return c, nil
	}
	path, err := h.search.Find(spec.Plugin) // absolute: exec does not search PATH again
	if err != nil {
		return nil, fmt.Errorf("hal %q: %w", name, err)
	}
	warnIfWritable(path, h.log)
	release, err := startSlot(ctx)
	if err != nil {
		return nil, fmt.Errorf("hal %q: plugin %s: start: %w: %w", name, path, halrpc.ErrCanceled, err)
	}
	c, err := halrpc.Start(halrpc.Options{
		Path:    path,
		SHA256:  spec.SHA256,
		Timeout: spec.Timeout.Duration,
		Context: ctx,
		Logger:  h.log.With("hal", name),
	})
	release()
	if err != nil {
		if errors.Is(err, halrpc.ErrStartTimeout) {
			h.startTimeouts.Add(1)
		}
		return nil, fmt.Errorf("hal %q: %w", name, err)
	}
	h.clients[name] = c
	return c, nil
}

// Open opens a configured instance of HAL name for machine m, whose
// programming goes to hw, and describes it.
func (h *Host) Open(name string, m hal.Machine, hw Hardware) (*MachineHAL, error) {
	return h.open(context.Background(), name, m, hw, nil, nil)
}

// OpenContext is Open whose plugin calls, now and later, also end when ctx
// ends (the run's budget, Ctrl-C), leaving the plugin running.
func (h *Host) OpenContext(ctx context.Context, name string, m hal.Machine, hw Hardware) (*MachineHAL, error) {
	return h.open(ctx, name, m, hw, nil, nil)
}

// open is OpenContext with settings merged key by key over the configured
// ones, its plugin calls ordered by pipe (nil: each waited for).
func (h *Host) open(ctx context.Context, name string, m hal.Machine, hw Hardware, extra map[string]any, pipe *halrpc.Pipeline) (*MachineHAL, error) {
	spec, ok := h.hals[name]
	if !ok {
		return nil, fmt.Errorf("hal %q is not configured (configured: %v); add a [hal.%s] table", name, h.names(), name)
	}
	if len(extra) > 0 {
		merged := maps.Clone(spec.Settings)
		if merged == nil {
			merged = map[string]any{}
		}
		maps.Copy(merged, extra)
		spec.Settings = merged
	}
	settings, err := spec.SettingsJSON()
	if err != nil {
		return nil, fmt.Errorf("hal %q: settings: %w", name, err)
	}
	var inst hal.Instance
	var where string
	var proc *halrpc.Client
	if spec.Transport == config.TransportInproc {
		f, ok := builtinFactory(spec.Plugin)
		if !ok {
			return nil, fmt.Errorf("hal %q: transport \"inproc\" runs only the shipped HALs (%v), not %q", name, sortedKeys(Builtin()), spec.Plugin)
		}
		inst, where = hal.Local(f), "in-process"
	} else {
		c, err := h.client(ctx, name, spec)
		if err != nil {
			return nil, err
		}
		// no pid in where: it reaches errors and so results, which are
		// the same bytes whatever process ran them (the log has the pid)
		inst, where, proc = c.NewInstanceIn(ctx, pipe), "plugin "+c.Path(), c
	}
	key := describedKey(name, proc, m, settings)
	if later, ok := inst.(halrpc.Pipelined); ok && pipe != nil {
		if d, a, known := h.described.get(key); known {
			return h.openKnown(name, where, inst, later, m, hw, settings, d, a, proc, pipe)
		}
	}
	if err := inst.Configure(m, settings); err != nil {
		inst.Close()
		return nil, &ConfigureError{HAL: name, Where: where, Err: err}
	}
	mh, err := NewMachineHAL(name, where, inst, m, hw, h.log)
	if err != nil {
		inst.Close()
		return nil, err
	}
	h.described.put(key, mh.desc, mh.abilities)
	if proc != nil {
		mh.proc = proc
	}
	if later, ok := inst.(halrpc.Pipelined); ok && pipe != nil {
		mh.pipe, mh.later = pipe, later
	}
	return mh, nil
}

// openKnown opens an instance whose description and abilities the host
// already has from an instance of the same plugin process, machine (but
// for its seed) and settings: the configure call is held back until the
// instance's first call (halrpc's ConfigureLazily), and its answer must
// describe the same HAL. A HAL's description depends on the machine and
// its settings, not on the seed (package hal), so a sweep of seeds opens
// its HALs without a round trip, and a HAL a run never calls costs it
// nothing.
func (h *Host) openKnown(name, where string, inst hal.Instance, later halrpc.Pipelined, m hal.Machine, hw Hardware, settings []byte, d hal.Description, a hal.Abilities, proc *halrpc.Client, pipe *halrpc.Pipeline) (*MachineHAL, error) {
	mh := newMachineHAL(name, where, inst, m, hw, h.log)
	mh.proc, mh.pipe, mh.later = proc, pipe, later
	if err := mh.described(d, a); err != nil {
		return nil, err
	}
	err := later.ConfigureLazily(m, settings, func(gd hal.Description, ga hal.Abilities, ok bool, err error) error {
		switch {
		case err != nil:
			return mh.fail("configure", &ConfigureError{HAL: name, Where: where, Err: err})
		case !ok:
			return nil // a plugin that answers configure with no description: nothing to compare
		case !reflect.DeepEqual(gd, d) || ga != a:
			return mh.fail("configure", fmt.Errorf("nonsense answer: for seed %d it described itself differently than for an earlier seed on the same machine and settings; a HAL's description and abilities may depend on the machine and its settings, not on the seed", m.Seed))
		}
		return nil
	})
	if err != nil {
		inst.Close()
		return nil, &ConfigureError{HAL: name, Where: where, Err: err}
	}
	return mh, nil
}

// OpenMachine opens the HALs a machine lists, concurrently, in list order.
// On any failure it closes what it opened and returns every error.
func (h *Host) OpenMachine(names []string, m hal.Machine, hw Hardware) ([]*MachineHAL, error) {
	return h.OpenMachineWith(names, m, hw, nil)
}

// OpenMachineWith is OpenMachine with, per HAL name, settings merged key by
// key over the configured ones for this machine only (lab.machine{
// hal_settings = {...} }).
func (h *Host) OpenMachineWith(names []string, m hal.Machine, hw Hardware, settings map[string]map[string]any) ([]*MachineHAL, error) {
	return h.OpenMachineContext(context.Background(), names, m, hw, settings)
}

// OpenMachineContext is OpenMachineWith whose plugin calls, now and later,
// also end when ctx ends (see OpenContext).
//
// The machine's plugin HALs share a halrpc.Pipeline: the calls whose
// answers the kernel does not need at once are sent without waiting, and
// applied in call order when a call that needs its answer is made or the
// run settles them (MachineHAL.Settle).
func (h *Host) OpenMachineContext(ctx context.Context, names []string, m hal.Machine, hw Hardware, settings map[string]map[string]any) ([]*MachineHAL, error) {
	out := make([]*MachineHAL, len(names))
	errs := make([]error, len(names))
	pipe := halrpc.NewPipeline()
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = h.open(ctx, n, m, hw, settings[n], pipe)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		CloseMachine(out)
		return nil, err
	}
	return out, nil
}

// CloseMachine closes the HALs OpenMachine opened (nil entries are
// skipped), concurrently, as OpenMachine opens them: releasing a
// machine's plugin HALs costs one round trip's time, not one per HAL.
// Errors are dropped: the plugin process stays for other machines, and
// a plugin that died is noticed by the next call that needs it.
func CloseMachine(mhs []*MachineHAL) {
	var wg sync.WaitGroup
	for _, mh := range mhs {
		if mh != nil {
			wg.Add(1)
			go func() { defer wg.Done(); _ = mh.Close() }()
		}
	}
	wg.Wait()
}

// Pids returns the running plugin processes' ids by HAL name.
func (h *Host) Pids() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]int{}
	for n, c := range h.clients {
		if !c.Exited() {
			out[n] = c.Pid()
		}
	}
	return out
}

// RoundTrips is the number of calls the host's running plugin processes
// have been sent (a plugin restarted after a crash starts again from 0):
// the cost of the process boundary, which benchmarks report per run.
func (h *Host) RoundTrips() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var n int64
	for _, c := range h.clients {
		n += c.RoundTrips()
	}
	return n
}

// Close kills every plugin process the host started and waits for them.
// Later opens fail with ErrClosed. Close is idempotent.
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	clients := h.clients
	h.clients = map[string]*halrpc.Client{}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); c.Kill() }()
	}
	wg.Wait()
}

// CloseWhenDone closes the host when ctx ends (Ctrl-C through
// signal.NotifyContext, a run's timeout). It returns a function that
// stops watching.
func (h *Host) CloseWhenDone(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, h.Close)
}

func (h *Host) names() []string { return sortedKeys(h.hals) }

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
