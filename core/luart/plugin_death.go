package luart

import (
	"github.com/proflab/proflab/kernel"
)

// processWatch is what a HAL served by a plugin process offers to notice
// the process's death between calls (halhost.MachineHAL).
type processWatch interface {
	Done() <-chan struct{}
	Err() error
}

// pluginDeath is the cause of a run's context when a HAL plugin process
// died during the run.
type pluginDeath struct{ err error }

func (d *pluginDeath) Error() string { return d.err.Error() }
func (d *pluginDeath) Unwrap() error { return d.err }

// watchHALs ends the run (its context, with a *pluginDeath cause) when the
// process of one of hals dies, so that a plugin killed while the
// simulator runs without calling it fails the run (exit status 3) instead
// of going unnoticed. The watchers end with the run.
func (rt *Runtime) watchHALs(hals []kernel.HALDispatch) {
	ctx := rt.Context()
	for _, h := range hals {
		w, ok := h.(processWatch)
		if !ok || w.Done() == nil {
			continue
		}
		go func() {
			select {
			case <-w.Done():
				if err := w.Err(); err != nil {
					rt.Stop(&pluginDeath{err})
				}
			case <-ctx.Done():
			}
		}()
	}
}
