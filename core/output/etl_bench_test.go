package output_test

import (
	"io"
	"runtime"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// longSession is a kernel logger session of seconds of simulated time on
// 4 processors at ProfileTime 1221 (8.19 kHz): 60 s holds about two
// million samples. stackwalk adds a stack walk to each.
func longSession(tb testing.TB, seconds int, stackwalk bool) *output.Registry {
	tb.Helper()
	l := labtest.Inproc(tb, 4, 1)
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	s, err := l.M.StartKernelLogger(true)
	if err != nil {
		tb.Fatal(err)
	}
	if stackwalk {
		if err := s.SetStackWalk(kernel.StackWalkHooks); err != nil {
			tb.Fatal(err)
		}
	}
	reg.AddSession(l.M, s)
	l.SetInterval(tb, nt.ProfileTime, 1221)
	if _, err := l.Sim.Run(uint64(seconds)*1_000_000, labtest.Large(l.P, 400, 200, 1)); err != nil {
		tb.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(reg.Close)
	return reg
}

// countingWriter counts the bytes written.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkLongSession compares writing the .etl of a 60 s, 4-processor,
// 8 kHz session (about two million samples) with writing its Perfetto
// trace, both to a counting io.Writer (no disk), both reading the
// session's spool back.
func BenchmarkLongSession(b *testing.B) {
	if testing.Short() {
		b.Skip("a 60 s session")
	}
	for _, tc := range []struct {
		name      string
		stackwalk bool
		write     func(io.Writer, *output.Registry) error
	}{
		{"perfetto", false, func(w io.Writer, reg *output.Registry) error {
			_, err := output.WriteTraceLimited(w, reg, -1)
			return err
		}},
		{"etl", false, func(w io.Writer, reg *output.Registry) error { return output.WriteETLTo(w, reg.Machines()[0]) }},
		{"etl-stackwalk", true, func(w io.Writer, reg *output.Registry) error { return output.WriteETLTo(w, reg.Machines()[0]) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			reg := longSession(b, 60, tc.stackwalk)
			b.ReportAllocs()
			var cw countingWriter
			for b.Loop() {
				cw = countingWriter{}
				if err := tc.write(&cw, reg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cw.n)/(1<<20), "MiB")
		})
	}
}

// The .etl writer's memory is flat in the number of events: writing a
// session eight times as long allocates about the same.
func TestETLMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("two sessions of seconds")
	}
	alloc := func(seconds int) uint64 {
		reg := longSession(t, seconds, true)
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		if err := output.WriteETLTo(io.Discard, reg.Machines()[0]); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&b)
		return b.TotalAlloc - a.TotalAlloc
	}
	short, long := alloc(1), alloc(8)
	if long > short+(1<<20) {
		t.Errorf("writing 1 s allocated %d KiB, 8 s %d KiB: memory grows with the events", short>>10, long>>10)
	}
}
