package output_test

import (
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/kernel/nt"
)

// BenchmarkWrite measures writing a run's outputs: buckets.csv, a pprof
// profile of 48 buckets of 64 bytes, and the Perfetto trace of ~2000 events.
func BenchmarkWrite(b *testing.B) {
	l, reg, _ := loggedLab(b, 2, 1)
	l.Profile(b, 0x10000, 0xC00, 6, nt.ProfileTime)
	l.SetInterval(b, nt.ProfileTime, 1221)
	if _, err := l.Sim.Run(100_000, labtest.ThreeFuncs(l.P)); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		if _, err := output.Write(dir, reg); err != nil {
			b.Fatal(err)
		}
	}
}
