package sweep

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/proflab/proflab/core/sweep/results"
)

// Lines writes a line at most every period, with runs done, failures,
// rate and ETA, and a last one at the end.
func TestLinesProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewLines(&b, 10*time.Second)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.nowFunc = func() time.Time { return now }
	p.Start(10, 2)
	for i := range 4 {
		now = now.Add(4 * time.Second)
		st := results.StatusOK
		if i == 1 {
			st = results.StatusFailed
		}
		p.Add(results.Line{Status: st})
	}
	p.Finish()
	want := "sweep: 10 runs, 2 already done\n" +
		"sweep: 5/10 runs, 1 failed, 0.2 runs/s, ETA 20s\n" + // after 12 s: 3 runs
		"sweep: 6/10 runs, 1 failed, 0.2 runs/s, ETA 16s\n" // the end, 16 s
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// The bar draws runs done, failures and the rate.
func TestBarProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewBar(&b)
	p.Start(3, 1)
	p.Add(results.Line{Status: results.StatusFailed})
	p.Add(results.Line{Status: results.StatusOK})
	p.Finish()
	out := b.String()
	for _, w := range []string{"3/3 runs", "1 failed", "runs/s"} {
		if !strings.Contains(out, w) {
			t.Errorf("bar output lacks %q:\n%q", w, out)
		}
	}
}
