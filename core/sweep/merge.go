package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/proflab/proflab/core/sweep/report"
	"github.com/proflab/proflab/core/sweep/results"
)

// Merge joins the output folders of a sweep's shards into out: the
// results in run order and the reports, exactly as an unsharded sweep
// writes them (timings aside). It refuses folders of different sweeps
// (their hashes differ), a shard given twice, a missing shard and a shard
// whose runs are not all done.
//
// It reads the shards' results as streams and keeps a bit per run, so
// merging a million runs takes the memory of merging ten.
func Merge(out string, dirs []string, opt MergeOptions) error {
	if len(dirs) == 0 {
		return errors.New("merge: give the shards' output folders")
	}
	first, err := shardManifests(dirs)
	if err != nil {
		return err
	}
	inputs, mixed, err := mergeInputs(dirs, opt.AllowMixed)
	if err != nil {
		return err
	}
	out, unlock, err := prepareOut(context.Background(), out, false)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	defer unlock()
	if m, err := readManifest(out); err == nil && m != nil {
		return fmt.Errorf("merge: %s already holds a sweep's results; choose an empty folder", out)
	}
	path := filepath.Join(out, results.FileName)
	seen := newBitset(first.Runs)
	if err := results.Create(path, func(w io.Writer) error {
		for _, dir := range dirs {
			if err := copyShard(w, dir, seen); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	for i := range first.Runs {
		if !seen.has(i) {
			os.Remove(path)
			return fmt.Errorf("merge: run %d missing across the shards", i)
		}
	}
	if err := results.SortFile(path, first.Runs, func(i int) int { return i }); err != nil {
		return err
	}
	whole := *first
	whole.Shard, whole.ShardRuns = Whole, first.Runs
	whole.Inputs, whole.Mixed = inputs, mixed
	whole.ParamsRead, whole.Unread = mergeParamsRead(dirs)
	if err := writeManifest(out, whole); err != nil {
		return err
	}
	runs, err := whole.runs()
	if err != nil {
		return err
	}
	notes, err := report.WriteWith(out, report.Options{Runs: runs})
	tell(opt.Notes, notes)
	return err
}

// MergeOptions tune Merge.
type MergeOptions struct {
	// AllowMixed merges shards whose runs depended on different versions
	// of an input (Manifest.Inputs), recording them in the merged
	// sweep.json's mixed, instead of refusing.
	AllowMixed bool
	// Notes, when not nil, is told what the reports left out to stay
	// bounded, as Options.Notes.
	Notes func(note string)
}

// mergeInputs joins the shards' recorded inputs: an input two shards saw
// in different versions (a module edited between two shards, another
// proflab build on one node) is refused unless allow, and listed in mixed.
func mergeInputs(dirs []string, allow bool) (map[string]string, []string, error) {
	inputs, from := map[string]string{}, map[string]string{}
	mixed := map[string]bool{}
	var problems []string
	for _, dir := range dirs {
		m, err := readManifest(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("merge: %w", err)
		}
		for _, k := range m.Mixed {
			mixed[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(m.Inputs)) {
			v := m.Inputs[k]
			if old, ok := inputs[k]; ok && old != v {
				if !mixed[k] {
					problems = append(problems, fmt.Sprintf("%s is %.12s in %s but %.12s in %s", k, old, from[k], v, dir))
				}
				mixed[k] = true
				continue
			}
			inputs[k], from[k] = v, dir
		}
	}
	if len(problems) > 0 && !allow {
		return nil, nil, fmt.Errorf("merge: the shards ran different code: %s; rerun the odd shards with the same proflab, plugins and files, or add --allow-mixed to merge anyway (recorded in sweep.json as mixed)", strings.Join(problems, "; "))
	}
	var keys []string
	if len(mixed) > 0 {
		keys = slices.Sorted(maps.Keys(mixed))
	}
	return inputs, keys, nil
}

// mergeParamsRead joins the shards' read and unread parameters: a
// parameter some shard's runs read was read.
func mergeParamsRead(dirs []string) (read, unread []string) {
	all, was := map[string]bool{}, map[string]bool{}
	for _, dir := range dirs {
		m, err := readManifest(dir)
		if err != nil {
			continue // shardManifests has read them all already
		}
		for _, n := range m.ParamsRead {
			all[n], was[n] = true, true
		}
		for _, n := range m.Unread {
			all[n] = true
		}
	}
	for _, n := range slices.Sorted(maps.Keys(all)) {
		if was[n] {
			read = append(read, n)
		} else {
			unread = append(unread, n)
		}
	}
	return read, unread
}

// shardManifests reads the shards' manifests and checks that they are the
// shards of one sweep's split, each once and none missing; it returns the
// first.
func shardManifests(dirs []string) (*Manifest, error) {
	var first *Manifest
	byShard := map[int]string{}
	for _, dir := range dirs {
		m, err := readManifest(dir)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("merge: %s has no %s: not a sweep's output folder", dir, ManifestName)
		}
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if first == nil {
			first = m
		} else if m.Hash != first.Hash || m.Runs != first.Runs {
			return nil, fmt.Errorf("merge: %s holds another sweep than %s (%s, hash %.12s, versus %s, hash %.12s): shards of one sweep have one sweep file, --set values and scenario",
				dir, dirs[0], m.Sweep, m.Hash, first.Sweep, first.Hash)
		} else if m.Shard.Count != first.Shard.Count {
			return nil, fmt.Errorf("merge: %s is shard %s but %s is shard %s: shards of one split have one count", dir, m.Shard, dirs[0], first.Shard)
		}
		if prev, dup := byShard[m.Shard.Index]; dup {
			return nil, fmt.Errorf("merge: %s and %s are both shard %s", prev, dir, m.Shard)
		}
		byShard[m.Shard.Index] = dir
	}
	var missing []string
	for k := range first.Shard.Count {
		if _, ok := byShard[k]; !ok {
			missing = append(missing, Shard{k, first.Shard.Count}.String())
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("merge: shard %s of %s missing: give every shard's output folder", strings.Join(missing, ", "), first.Sweep)
	}
	return first, nil
}

// copyShard copies the complete result lines of the shard in dir to w,
// marking their runs in seen: a run outside the shard, or one already
// seen, is an error that says how to repair the shard, and so is a shard
// with runs still to do.
func copyShard(w io.Writer, dir string, seen *bitset) error {
	m, err := readManifest(dir)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	file := filepath.Join(dir, results.FileName)
	runs, err := m.runs()
	if err != nil {
		return fmt.Errorf("merge: %s: %w", dir, err)
	}
	n := 0
	// every line a run of the sweep (results.Validate), and of the shard
	torn, err := results.EachRun(file, runs, func(l results.Line, raw []byte, _ int64) error {
		if l.Index%m.Shard.Count != m.Shard.Index {
			return fmt.Errorf("merge: %s: run %s (index %d) is not a run of shard %s", file, l.ID, l.Index, m.Shard)
		}
		if seen.has(l.Index) {
			return fmt.Errorf("merge: %w; then merge again", results.Duplicate(file, l.Index))
		}
		seen.set(l.Index)
		n++
		_, err := w.Write(raw)
		return err
	})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("merge: %s (shard %s) has 0 of its %d runs: finish it with proflab sweep ... --shard %s --resume --out %s", dir, m.Shard, m.ShardRuns, m.Shard, dir)
		}
		return err
	}
	if n != m.ShardRuns || torn {
		return fmt.Errorf("merge: %s (shard %s) has %d of its %d runs: finish it with proflab sweep ... --shard %s --resume --out %s",
			dir, m.Shard, n, m.ShardRuns, m.Shard, dir)
	}
	return nil
}
