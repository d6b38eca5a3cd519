package sweep

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/proflab/proflab/core/sweep/results"
)

// Progress follows a sweep. Its methods are called from one goroutine.
type Progress interface {
	// Start: total runs in the shard, done of them already finished.
	Start(total, done int)
	// Add: one more run finished.
	Add(l results.Line)
	// Finish: no more runs.
	Finish()
}

type silent struct{}

func (silent) Start(int, int)   {}
func (silent) Add(results.Line) {}
func (silent) Finish()          {}

var (
	_ Progress = silent{}
	_ Progress = (*Bar)(nil)
	_ Progress = (*Lines)(nil)
)

// Bar is a progress bar for a terminal (vbauerster/mpb): runs done of the
// total, failures, rate and ETA.
type Bar struct {
	w        io.Writer
	p        *mpb.Progress
	bar      *mpb.Bar
	failures int64
	mu       sync.Mutex
	start    time.Time
	last     time.Time
	base     int64 // runs done before Start
}

// NewBar returns a Bar drawing on w (a terminal).
func NewBar(w io.Writer) *Bar { return &Bar{w: w} }

// Start implements Progress.
func (b *Bar) Start(total, done int) {
	b.start, b.last, b.base = time.Now(), time.Now(), int64(done)
	b.p = mpb.New(mpb.WithOutput(b.w), mpb.WithWidth(40), mpb.WithRefreshRate(150*time.Millisecond), mpb.WithAutoRefresh())
	b.bar = b.p.AddBar(int64(total),
		mpb.PrependDecorators(
			decor.Name("sweep "),
			decor.CountersNoUnit("%d/%d runs"),
			decor.Any(func(decor.Statistics) string {
				b.mu.Lock()
				defer b.mu.Unlock()
				return fmt.Sprintf("  %d failed", b.failures)
			}),
		),
		mpb.AppendDecorators(
			decor.Any(func(st decor.Statistics) string {
				b.mu.Lock()
				defer b.mu.Unlock()
				rate := 0.0
				if el := time.Since(b.start).Seconds(); el > 0 {
					rate = float64(st.Current-b.base) / el
				}
				return fmt.Sprintf("%.1f runs/s", rate)
			}),
			decor.Name("  ETA "),
			decor.AverageETA(decor.ET_STYLE_GO),
		),
	)
	b.bar.SetCurrent(int64(done))
}

// Add implements Progress.
func (b *Bar) Add(l results.Line) {
	if l.Status != results.StatusOK {
		b.mu.Lock()
		b.failures++
		b.mu.Unlock()
	}
	now := time.Now()
	b.bar.EwmaIncrement(now.Sub(b.last))
	b.last = now
}

// Finish implements Progress.
func (b *Bar) Finish() {
	if !b.bar.Completed() {
		b.bar.Abort(false)
	}
	b.p.Wait()
}

// Lines writes a plain progress line every Every (and a last one at the
// end), for logs and batch jobs where no terminal draws a bar.
type Lines struct {
	w       io.Writer
	every   time.Duration
	start   time.Time
	last    time.Time
	total   int
	done    int
	base    int
	failed  int
	nowFunc func() time.Time
}

// NewLines returns a Lines writing to w at most every every.
func NewLines(w io.Writer, every time.Duration) *Lines {
	return &Lines{w: w, every: every, nowFunc: time.Now}
}

// Start implements Progress.
func (p *Lines) Start(total, done int) {
	p.total, p.done, p.base = total, done, done
	p.start = p.nowFunc()
	p.last = p.start
	fmt.Fprintf(p.w, "sweep: %d runs, %d already done\n", total, done)
}

// Add implements Progress.
func (p *Lines) Add(l results.Line) {
	p.done++
	if l.Status != results.StatusOK {
		p.failed++
	}
	if now := p.nowFunc(); now.Sub(p.last) >= p.every {
		p.last = now
		p.line(now)
	}
}

// Finish implements Progress.
func (p *Lines) Finish() { p.line(p.nowFunc()) }

func (p *Lines) line(now time.Time) {
	el := now.Sub(p.start)
	rate := 0.0
	if el > 0 {
		rate = float64(p.done-p.base) / el.Seconds()
	}
	eta := "-"
	if rate > 0 {
		eta = time.Duration(float64(p.total-p.done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "sweep: %d/%d runs, %d failed, %.1f runs/s, ETA %s\n", p.done, p.total, p.failed, rate, eta)
}
