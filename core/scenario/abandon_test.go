package scenario

import (
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/core/runerr"
)

// cpuTime is the process's CPU time (user and system) so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Issue 36 item 7, "no abandoned work may go on consuming": a run whose
// time budget ends inside a long builtin (a pattern that backtracks for
// days, string.rep, table.concat, table.sort of huge inputs) ends at the
// budget, not abandoned, and leaves nothing running: the goroutines come
// back to what they were before the run within a bounded wait, and the
// process then uses no more CPU than an idle one (an abandoned matcher
// would keep a core busy).
func TestNoWorkGoesOnAfterTheRun(t *testing.T) {
	runtime.GC()
	baseline := runtime.NumGoroutine()
	for _, src := range []string{
		`string.find(string.rep("a", 1e6), ".-.-.-.-.-b")`,
		`local s = string.rep("a", 1e6) for i = 1, 1e9 do string.gsub(s, ".-.-.-.-b", "") end`,
		`local t = {} for i = 1, 3e5 do t[i] = (i * 7919) % 3e5 end for i = 1, 1e9 do table.sort(t, function(a, b) return a > b end) end`,
	} {
		r := run(t, src, func(o *Options) { o.Timeout = 300 * time.Millisecond })
		if r.Error == nil || r.Error.Kind != runerr.KindTimeout || strings.Contains(r.Error.Message, "abandoned") {
			t.Errorf("%s: error %+v, want the time budget's, not abandoned", src, r.Error)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > baseline && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > baseline {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines 10 s after the runs ended, %d before them:\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
	}
	before, start := cpuTime(t), time.Now()
	time.Sleep(500 * time.Millisecond)
	if used, wall := cpuTime(t)-before, time.Since(start); used > wall/2 {
		t.Errorf("the process used %v of CPU in %v after the runs ended: work went on", used, wall)
	}
}
