package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/proflab/proflab/core/sim"
)

// progressLine shows a long run's progress on a terminal: one line,
// rewritten in place, with the simulated time reached and the events
// handled per second of wall time. Nothing shows for a run shorter than
// progressAfter; the line is cleared when the run ends.
type progressLine struct {
	w          io.Writer
	shown      bool
	lastEvents uint64
	lastWall   time.Duration
}

const (
	progressAfter = time.Second
	progressEvery = 250 * time.Millisecond
)

func (p *progressLine) report(pr sim.Progress) {
	if pr.Final {
		if p.shown {
			fmt.Fprint(p.w, "\r\033[K")
		}
		*p = progressLine{w: p.w}
		return
	}
	if pr.Wall < progressAfter {
		return
	}
	rate := 0.0
	if dt := (pr.Wall - p.lastWall).Seconds(); dt > 0 && p.lastWall > 0 {
		rate = float64(pr.Events-p.lastEvents) / dt
	} else if s := pr.Wall.Seconds(); s > 0 {
		rate = float64(pr.Events) / s
	}
	p.lastEvents, p.lastWall = pr.Events, pr.Wall
	fmt.Fprintf(p.w, "\r\033[Ksimulated %.2f s of %.2f s (%.0f%%), %s events/s", float64(pr.Done)/1e6, float64(pr.Total)/1e6,
		100*float64(pr.Done)/float64(max(pr.Total, 1)), siCount(rate))
	p.shown = true
}

// siCount writes n with a k/M suffix.
func siCount(n float64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.2f M", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f k", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
