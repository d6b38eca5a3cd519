package sim

import (
	"context"
	"time"
)

// This file is progress reporting: a long run tells how far it got.
// Reports read the wall clock; nothing they do changes a run's results.

// Progress is how far a run got.
type Progress struct {
	// Done and Total are simulated time, in microseconds, since the run
	// started and in all.
	Done, Total uint64
	// Events is the number of events (interrupts, counter overflows,
	// scheduling decisions) the run handled so far.
	Events uint64
	// Wall is the wall-clock time since the run started.
	Wall time.Duration
	// Final is set on the last report of a run (after its end).
	Final bool
}

type progressKey struct{}

type progressSink struct {
	every time.Duration
	fn    func(Progress)
}

// WithProgress returns a context that makes RunContext report its
// progress to fn about every interval of wall-clock time, and once more
// at the end of a run that reported at least once. fn runs on the run's
// goroutine and must be quick.
func WithProgress(ctx context.Context, every time.Duration, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, progressSink{every: every, fn: fn})
}

// progressState is a run's reporting state.
type progressState struct {
	sink     progressSink
	start    time.Time
	last     time.Time
	reported bool
}

func (rs *runState) startProgress() {
	if sink, ok := rs.ctx.Value(progressKey{}).(progressSink); ok && sink.fn != nil {
		now := time.Now()
		rs.prog = &progressState{sink: sink, start: now, last: now}
	}
}

func (rs *runState) progressNow(final bool) Progress {
	s := rs.s
	startCycle := rs.end - rs.durationCycles
	done := (min(s.now, rs.end) - min(startCycle, s.now)) / s.freq
	return Progress{Done: done, Total: rs.durationCycles / s.freq, Events: rs.events, Wall: time.Since(rs.prog.start), Final: final}
}

// progress reports when the interval has passed (called every 1024
// iterations of the event loop).
func (rs *runState) progress() {
	p := rs.prog
	if p == nil {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= p.sink.every {
		p.last, p.reported = now, true
		p.sink.fn(rs.progressNow(false))
	}
}

// endProgress sends the final report of a run that reported.
func (rs *runState) endProgress() {
	if p := rs.prog; p != nil && p.reported {
		p.sink.fn(rs.progressNow(true))
	}
}
