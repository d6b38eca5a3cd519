package sweep

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/scenario"
	"github.com/proflab/proflab/core/sweep/results"
)

// worker runs a sweep's runs one after another. It keeps one HAL provider
// (a plugin host whose processes stay warm across its runs) per distinct
// [hal] table, so a version matrix reuses its plugins and a HAL-settings
// sweep gets a host per setting. The plugin host restarts a plugin that
// crashed or hung before the worker's next run uses it.
type worker struct {
	plan *Plan
	// runOutputs says each run's output folder is written (--run-outputs).
	runOutputs bool
	source     []byte
	setups     map[string]scenario.Setup
	hals       map[string]lab.HALProvider
	halKeys    map[*config.Config]string // halKey of each configuration, computed once
	closes     []func()
}

func newWorker(plan *Plan, source []byte) *worker {
	return &worker{plan: plan, source: source, setups: map[string]scenario.Setup{}, hals: map[string]lab.HALProvider{}, halKeys: map[*config.Config]string{}}
}

// run runs r in a fresh machine and Lua state. This is the one place the
// sweep calls the scenario runner (and so the lab assembly beneath it).
// startTimedOut says a plugin start of the run's HALs did not complete
// its handshake in time during the run: the machine's load, not the
// run, may have decided its result.
func (w *worker) run(ctx context.Context, r Run) (res scenario.Result, startTimedOut bool) {
	setup := w.setup(r)
	over := scenario.Overrides{Seed: &r.Seed}
	if t := w.plan.File.Timeout; t > 0 {
		over.Timeout = &t // the sweep file's timeout; else the configuration's
	}
	opt := setup.Options(over)
	opt.File, opt.Source, opt.Params = w.plan.File.Scenario, w.source, r.Params
	opt.NoOutputFolder = !w.runOutputs
	hals, err := w.provider(setup)
	if err != nil {
		return scenario.Run(ctx, opt), false // Run makes its own and reports the error
	}
	opt.HALs = hals
	host, _ := hals.(*lab.HostHALs)
	if host == nil {
		return scenario.Run(ctx, opt), false
	}
	before := host.Host.StartTimeouts()
	res = scenario.Run(ctx, opt)
	return res, host.Host.StartTimeouts() > before
}

// setup returns the Setup of r's configuration.
func (w *worker) setup(r Run) scenario.Setup {
	key := strings.Join(r.Overrides, "\n")
	s, ok := w.setups[key]
	if !ok {
		cfg := w.plan.Configs[key]
		c, checked := w.plan.checked[key]
		if checked {
			cfg = c.cfg
		}
		s = scenario.SetupFromConfig(w.plan.File.ConfigFile, cfg, halhost.Options{})
		s.Plugins = c.plugins
		w.setups[key] = s
	}
	return s
}

// provider returns the worker's HAL provider for setup's [hal] table.
func (w *worker) provider(setup scenario.Setup) (lab.HALProvider, error) {
	key, ok := w.halKeys[setup.Config]
	if !ok {
		key = halKey(setup.Config)
		w.halKeys[setup.Config] = key
	}
	if h, ok := w.hals[key]; ok {
		return h, nil
	}
	h, closeFn, err := setup.NewHALs()
	if err != nil {
		return nil, err
	}
	w.hals[key] = h
	w.closes = append(w.closes, closeFn)
	return h, nil
}

// close stops the worker's plugin processes.
func (w *worker) close() {
	for _, f := range w.closes {
		f()
	}
	w.closes = nil
}

func halKey(c *config.Config) string {
	if c == nil {
		return ""
	}
	b, _ := json.Marshal(c.HAL)
	return string(b)
}

// lineOf turns a run's result into its results line.
func (w *worker) lineOf(r Run, res scenario.Result) results.Line {
	// the runner names the scenario by the path it ran; results name it
	// as the sweep file does
	where := strings.NewReplacer(filepath.ToSlash(filepath.Clean(w.plan.File.Scenario))+":", w.plan.File.ScenarioName+":")
	l := results.Line{
		Index: r.Index, ID: r.ID, Params: r.Params, Repeat: r.Repeat, Seed: r.Seed,
		Status:     statusOf(res),
		Metrics:    res.Records,
		Checks:     make([]results.Check, 0, len(res.Checks)),
		Interrupts: map[string]uint64{},
		Timings:    results.Timings{WallSeconds: res.Timings.Wall.Round(time.Microsecond).Seconds()},
	}
	for _, c := range res.Checks {
		l.Checks = append(l.Checks, results.Check{Passed: c.Passed, Where: where.Replace(c.Where), Message: c.Message})
	}
	for _, m := range res.Machines {
		for src, n := range m.Interrupts {
			l.Interrupts[src] += n
		}
	}
	if e := res.Error; e != nil {
		l.Error = &results.Error{Kind: string(e.Kind), Message: results.Scrub(where.Replace(e.Message)), Where: results.Scrub(where.Replace(e.Where)), Traceback: results.Scrub(where.Replace(e.Traceback))}
	}
	return l
}

// statusOf maps a scenario's result to a sweep status: a failed check, a
// HAL plugin failure (crash, hang, nonsense) and a run out of time are
// "failed"; a Lua error, an unreadable scenario and a proflab bug are
// "error".
func statusOf(res scenario.Result) results.Status {
	switch {
	case res.Error != nil && (res.Error.Kind == runerr.KindPlugin || res.Error.Kind == runerr.KindTimeout):
		return results.StatusFailed
	case res.Error != nil:
		return results.StatusError
	case res.Status == scenario.StatusFailed:
		return results.StatusFailed
	}
	return results.StatusOK
}
