package lab_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel/nt"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// truthGolden is the file TestTruthIsBitForBit holds the runs' truth to.
var truthGolden = filepath.Join("testdata", "truth.jsonl.gz")

// TestTruthIsBitForBit holds the ground truth, interrupt counts and the
// profiles' buckets (where the interrupts fell) of a set of runs to what they were when testdata/truth.jsonl.gz was written
// (go test ./core/lab -run TestTruthIsBitForBit -update), to the bit: the
// engine's work may get cheaper, but a seed's results may not move by a
// unit in the last place (JSON writes each float as the shortest text
// that reads back to it). The runs: the 3-function workload on 4
// processors with the timer at 8192 Hz and an instruction counter, with
// 4 threads, 9 threads of mixed busyness (quantum ends, sleeps and
// switches) and odd segments, the latter with a periodic loop among the
// functions, and a workload shaped like an imported profile (functions
// with their own CPIs and cache-miss rates, stacks).
func TestTruthIsBitForBit(t *testing.T) {
	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	for _, c := range []struct {
		threads int
		large   bool
		seg     uint64
		loop    uint64 // gamma a loop of this many instructions
	}{{4, false, 0, 0}, {9, false, 0, 0}, {4, false, 3333, 0}, {4, true, 0, 0}, {4, true, 777, 0}, {9, false, 0, 192}} {
		for seed := uint64(1); seed <= 2; seed++ {
			l := labtest.Inproc(t, 4, seed)
			timer := l.Profile(t, 0x10000, 0xC00, 4, nt.ProfileTime)
			l.SetInterval(t, nt.ProfileTime, 1221)
			counter := l.Profile(t, 0x10000, 0xC00, 4, nt.ProfileTotalIssues)
			l.SetInterval(t, nt.ProfileTotalIssues, 3_000_000_000/8192)
			w := labtest.ThreeFuncs(l.P)
			if c.large {
				w = labtest.Large(l.P, 60, 300, seed)
			} else {
				th := make([]workload.Thread, c.threads)
				for i := range th {
					th[i] = workload.Thread{CPU: i % 4, Busy: []float64{1, 0.7, 0.4}[i%3]}
				}
				w.Processes[0].Threads = th
				w.Processes[0].Functions[2].LoopInstructions = c.loop
			}
			w.SegmentInstructions = c.seg
			res, err := l.Sim.Run(100_000, w)
			if err != nil {
				t.Fatal(err)
			}
			buckets := [][]uint32{l.Counters(t, timer), l.Counters(t, counter)}
			for _, v := range []any{res.Functions, res.Profiles, res.Stacks(), res.Interrupts, buckets} {
				if err := enc.Encode(v); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if *update {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(got.Bytes())
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(truthGolden, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(truthGolden)
	if err != nil {
		t.Fatalf("%v (write it with -update)", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got.Bytes(), want) {
		return
	}
	g, w := bufio.NewScanner(&got), bufio.NewScanner(bytes.NewReader(want))
	g.Buffer(nil, 1<<26)
	w.Buffer(nil, 1<<26)
	for line := 1; ; line++ {
		gok, wok := g.Scan(), w.Scan()
		if !gok || !wok || g.Text() != w.Text() {
			t.Fatalf("the truth differs from %s from its line %d on:\n got: %.400s\nwant: %.400s", truthGolden, line, g.Text(), w.Text())
		}
	}
}
