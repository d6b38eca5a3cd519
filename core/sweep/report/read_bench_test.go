package report

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/proflab/proflab/core/sweep/results"
)

// tableRuns are runs whose expectations are given.
type tableRuns []results.Expected

func (r tableRuns) Len() int                              { return len(r) }
func (r tableRuns) Expect(i int) (results.Expected, bool) { return r[i], true }

// BenchmarkReadResults is what the report pays to read a sweep's 12,000
// results lines with its plan known (as sweep.json records it): load,
// which holds every line to the plan and gathers the statistics, then
// results.csv, which reads them again for its rows. The plots and the
// page, which do not read the file, are left out.
func BenchmarkReadResults(b *testing.B) {
	dir := b.TempDir()
	app, err := results.OpenAppender(filepath.Join(dir, results.FileName))
	if err != nil {
		b.Fatal(err)
	}
	const n = 12000
	runs := make(tableRuns, n)
	for i := range n {
		params := map[string]any{"interval": int64(1000 * (1 + i%4)), "version": "10.0"}
		runs[i] = results.Expected{ID: fmt.Sprintf("%016x", i), Params: params, Seed: uint64(i) * 7919}
		l := results.Line{Index: i, ID: runs[i].ID, Params: params, Repeat: i / 4, Seed: runs[i].Seed, Status: results.StatusOK,
			Metrics:    map[string]any{"samples": int64(1000 + i%97), "tv_distance": 0.01 * float64(i%13), "p_value": 0.5},
			Checks:     []results.Check{{Passed: true, Where: "sweep.lua:12", Message: "samples taken"}},
			Interrupts: map[string]uint64{"ProfileTime": uint64(1000 + i%97)}, Timings: results.Timings{WallSeconds: 0.001}}
		if err := app.Append(l); err != nil {
			b.Fatal(err)
		}
	}
	app.Close()
	b.ReportAllocs()
	for b.Loop() {
		d, err := load(dir, runs)
		if err != nil || d.runs != n {
			b.Fatal(err)
		}
		if err := writeCSV(d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/line")
}
