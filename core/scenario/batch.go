package scenario

import (
	"context"
	"sync"

	"github.com/proflab/proflab/core/lab"
)

// worker holds one worker's HAL provider (a plugin host), made on first
// use and reused by its later runs.
type worker struct {
	hals     lab.HALProvider
	closeFns []func()
}

// prepare gives the run the worker's provider when the run has none.
func (w *worker) prepare(o Options) Options {
	if o.HALs != nil || o.Setup.NewHALs == nil {
		return o
	}
	if w.hals == nil {
		h, closeFn, err := o.Setup.NewHALs()
		if err != nil {
			return o // Run reports the error
		}
		w.hals = h
		w.closeFns = append(w.closeFns, closeFn)
	}
	o.HALs = w.hals
	return o
}

// close closes what the worker made.
func (w *worker) close() {
	for _, f := range w.closeFns {
		f()
	}
}

// RunAll runs every run on up to workers goroutines (at least one) and
// calls report with each result in the order of runs, as soon as it and
// all those before it are done. Runs share nothing, so the results do not
// depend on the number of workers.
func RunAll(ctx context.Context, runs []Options, workers int, report func(i int, r Result)) {
	if workers < 1 {
		workers = 1
	}
	if workers > len(runs) {
		workers = len(runs)
	}
	results := make([]Result, len(runs))
	done := make([]chan struct{}, len(runs))
	for i := range done {
		done[i] = make(chan struct{})
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := worker{}
			defer w.close()
			for i := range next {
				results[i] = Run(ctx, w.prepare(runs[i]))
				close(done[i])
			}
		}()
	}
	go func() {
		for i := range runs {
			next <- i
		}
		close(next)
	}()
	for i := range runs {
		<-done[i]
		report(i, results[i])
	}
	wg.Wait()
}
