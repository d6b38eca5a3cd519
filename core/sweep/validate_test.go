package sweep_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep"
	"github.com/proflab/proflab/core/sweep/results"
)

// copyDir copies the files of the folder src (not its subfolders) into a
// new folder.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dst
}

// editLine changes the n-th (from 1) line of dir's results.jsonl with
// edit, which gets the line as JSON (numbers as written).
func editLine(t *testing.T, dir string, n int, edit func(l map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, results.FileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	dec := json.NewDecoder(strings.NewReader(lines[n-1]))
	dec.UseNumber()
	var l map[string]any
	if err := dec.Decode(&l); err != nil {
		t.Fatal(err)
	}
	edit(l)
	out, _ := json.Marshal(l)
	lines[n-1] = string(out) + "\n"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wholeAndShards runs p into dir/whole, and as two shards into dir/s0
// and dir/s1.
func wholeAndShards(t *testing.T, p *sweep.Plan, dir string) (whole string, shards []string) {
	t.Helper()
	whole = filepath.Join(dir, "whole")
	run(t, p, whole, sweep.Options{})
	for k := range 2 {
		d := filepath.Join(dir, fmt.Sprintf("s%d", k))
		run(t, p, d, sweep.Options{Shard: sweep.Shard{Index: k, Count: 2}})
		shards = append(shards, d)
	}
	return whole, shards
}

// Every reader of results.jsonl — report, --resume, merge — accepts the
// same lines: the index one of the sweep's, and the id, params and seed
// those the plan computes for it; any other line is refused with one
// message naming its line. Before: report published a line of index 999
// (results.csv without run 1) and one whose params or seed were edited
// (summary.md: interval = 2000, n = 3, and no row for 1000), --resume
// refused only the first, and merge took the edited ones.
func TestEveryReaderValidatesLines(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "repeats = 2\n[grid]\ninterval = [1000, 2000]\n"))
	whole, shards := wholeAndShards(t, p, dir)
	for _, tt := range []struct {
		name string
		edit func(l map[string]any)
		want string
	}{
		{"index out of range", func(l map[string]any) { l["index"] = 999 }, "has the index 999, and this sweep's 4 runs are 0…3"},
		{"id of no run", func(l map[string]any) { l["id"] = "ffffffffffffffff" }, "has the id ffffffffffffffff, but this sweep's run"},
		{"params edited", func(l map[string]any) { l["params"].(map[string]any)["interval"] = 1500 }, `has the params {"interval":1500}, but this sweep's run`},
		{"seed edited", func(l map[string]any) { l["seed"] = 7 }, "has the seed 7, but this sweep's run"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// line 2 of the whole sweep, line 2 of shard 0 (its second run)
			check := func(reader string, err error, file string) {
				t.Helper()
				if err == nil || !strings.Contains(err.Error(), file+":2: ") || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "not a run of this sweep") {
					t.Errorf("%s: %v, want %s:2: ... %s", reader, err, file, tt.want)
				}
			}
			rep := copyDir(t, whole)
			editLine(t, rep, 2, tt.edit)
			before, _ := os.ReadFile(filepath.Join(rep, "results.csv"))
			check("report", sweep.Report(rep), filepath.Join(rep, results.FileName))
			if after, _ := os.ReadFile(filepath.Join(rep, "results.csv")); !bytes.Equal(before, after) {
				t.Error("report rewrote results.csv from a line that is no run")
			}

			res := copyDir(t, whole)
			editLine(t, res, 2, tt.edit)
			_, err := sweep.Execute(context.Background(), p, sweep.Options{Out: res, Resume: true})
			check("--resume", err, filepath.Join(res, results.FileName))

			s0 := copyDir(t, shards[0])
			editLine(t, s0, 2, tt.edit)
			err = sweep.Merge(filepath.Join(t.TempDir(), "merged"), []string{s0, shards[1]}, sweep.MergeOptions{})
			check("merge", err, filepath.Join(s0, results.FileName))
		})
	}
	// the untouched folders pass every reader
	if err := sweep.Report(copyDir(t, whole)); err != nil {
		t.Errorf("report of the sweep's own lines: %v", err)
	}
	if err := sweep.Merge(filepath.Join(t.TempDir(), "merged"), shards, sweep.MergeOptions{}); err != nil {
		t.Errorf("merge of the sweep's own lines: %v", err)
	}
}

// A float, a string and an integer past 2^53 in the grid survive
// sweep.json's plan record: the report computes the same ids and seeds
// as the sweep did.
func TestPlanRecordKeepsValues(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, writeSweep(t, dir, "[grid]\nscale = [0.1, 1e21]\nbig = [9007199254740993]\nname = [\"a\"]\n[set]\nflag = true\n"))
	out := filepath.Join(dir, "out")
	run(t, p, out, sweep.Options{})
	m, err := sweep.ReadManifest(out)
	if err != nil || m.Plan == nil {
		t.Fatalf("manifest %v, %v: want its plan", m, err)
	}
	if err := sweep.Report(out); err != nil {
		t.Errorf("report: %v", err)
	}
}
