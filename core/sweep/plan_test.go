package sweep_test

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/proflab/proflab/core/sweep"
)

// expanded is the plan's runs as the first expansion listed them: the
// cartesian product built point by point (grid axes in name order, the
// first outermost, then the zip, then the repeats), the reference the
// index arithmetic of Plan.Run is checked against.
func expanded(f *sweep.File) []map[string]any {
	points := []map[string]any{{}}
	for _, ax := range f.Grid {
		var next []map[string]any
		for _, p := range points {
			for _, v := range ax.Values {
				q := map[string]any{ax.Name: v}
				for k, w := range p {
					q[k] = w
				}
				next = append(next, q)
			}
		}
		points = next
	}
	if len(f.Zip) > 0 {
		var next []map[string]any
		for _, p := range points {
			for i := range f.Zip[0].Values {
				q := map[string]any{}
				for k, w := range p {
					q[k] = w
				}
				for _, ax := range f.Zip {
					q[ax.Name] = ax.Values[i]
				}
				next = append(next, q)
			}
		}
		points = next
	}
	var runs []map[string]any
	for _, p := range points {
		for k, v := range f.Set {
			p[k] = v
		}
		for range f.Repeats {
			runs = append(runs, p)
		}
	}
	return runs
}

// Plan.Run computes every run from its index as the listed expansion
// has it, and the shards' accessors agree with "run i is in shard i mod N".
func TestPlanRunsByIndex(t *testing.T) {
	dir := t.TempDir()
	path := writeSweep(t, dir, `seed = 9
repeats = 3
[grid]
c = [1, 2, 3, 4]
a = ["x", "y"]
b = { from = 1, to = 5, steps = 3 }
[zip]
z1 = [1, 2]
z2 = ["p", "q"]
[set]
fixed = "yes"
`)
	f, err := sweep.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := expanded(f)
	p, err := sweep.Expand(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != len(want) || p.Len() != 4*2*3*2*3 {
		t.Fatalf("Len %d, the expansion has %d", p.Len(), len(want))
	}
	for i, w := range want {
		r := p.Run(i)
		if r.Index != i || r.Repeat != i%3 || !reflect.DeepEqual(r.Params, w) {
			t.Fatalf("run %d: index %d repeat %d %v, want repeat %d %v", i, r.Index, r.Repeat, r.Params, i%3, w)
		}
	}
	for _, s := range []sweep.Shard{sweep.Whole, {Index: 0, Count: 5}, {Index: 4, Count: 5}, {Index: 143, Count: 200}, {Index: 199, Count: 200}} {
		var got []int
		for r := range p.ShardRuns(s) {
			got = append(got, r.Index)
		}
		var wantIdx []int
		for i := range want {
			if s.Count <= 1 || i%s.Count == s.Index {
				wantIdx = append(wantIdx, i)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(wantIdx) || p.ShardLen(s) != len(wantIdx) {
			t.Errorf("shard %s: runs %v (ShardLen %d), want %v", s, got, p.ShardLen(s), wantIdx)
		}
		for k, i := range wantIdx {
			if p.ShardPos(s, i) != k || p.ShardRun(s, k).Index != i {
				t.Errorf("shard %s: run %d at position %d, ShardPos %d", s, i, k, p.ShardPos(s, i))
			}
		}
		if s.Count > 1 && p.ShardPos(s, (s.Index+1)%s.Count) != -1 {
			t.Errorf("shard %s: ShardPos of a run of another shard is not -1", s)
		}
	}
}

// Planning a sweep of ten million runs and listing one shard's first runs
// takes memory independent of the number of runs: nothing is listed
// until asked for.
func TestPlanOfTenMillionRunsIsSmall(t *testing.T) {
	dir := t.TempDir()
	path := writeSweep(t, dir, "repeats = 10\n[grid]\na = { from = 1, to = 1000, steps = 1000 }\nb = { from = 1, to = 1000, steps = 1000 }\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p := plan(t, path)
	shard := sweep.Shard{Index: 7, Count: 100_000}
	n := 0
	for r := range p.ShardRuns(shard) {
		if n++; n == 10 {
			break
		}
		if r.Index%100_000 != 7 {
			t.Fatalf("run %d is not in shard %s", r.Index, shard)
		}
	}
	runtime.ReadMemStats(&after)
	if p.Len() != 10_000_000 || p.ShardLen(shard) != 100 {
		t.Fatalf("Len %d, ShardLen %d", p.Len(), p.ShardLen(shard))
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("planning 10^7 runs and listing 10 allocated %d MB; it must not grow with the runs", grew>>20)
	}
}
