package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/proflab/proflab/core/sweep/report"
	"github.com/proflab/proflab/core/sweep/results"
)

// Merge joins the output folders of a sweep's shards into out: the
// results in run order and the reports, exactly as an unsharded sweep
// writes them (timings aside). It refuses folders of different sweeps
// (their hashes differ), a shard given twice, a missing shard and a shard
// whose runs are not all done.
func Merge(out string, dirs []string) error {
	if len(dirs) == 0 {
		return errors.New("merge: give the shards' output folders")
	}
	var first *Manifest
	byShard := map[int]string{}
	var all []results.Line
	for _, dir := range dirs {
		m, err := readManifest(dir)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("merge: %s has no %s: not a sweep's output folder", dir, ManifestName)
		}
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if first == nil {
			first = m
		} else if m.Hash != first.Hash || m.Runs != first.Runs {
			return fmt.Errorf("merge: %s holds another sweep than %s (%s, hash %.12s, versus %s, hash %.12s): shards of one sweep have one sweep file, --set values and scenario",
				dir, dirs[0], m.Sweep, m.Hash, first.Sweep, first.Hash)
		} else if m.Shard.Count != first.Shard.Count {
			return fmt.Errorf("merge: %s is shard %s but %s is shard %s: shards of one split have one count", dir, m.Shard, dirs[0], first.Shard)
		}
		if prev, dup := byShard[m.Shard.Index]; dup {
			return fmt.Errorf("merge: %s and %s are both shard %s", prev, dir, m.Shard)
		}
		byShard[m.Shard.Index] = dir
		lines, torn, err := results.Read(filepath.Join(dir, results.FileName))
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		seen := map[int]bool{}
		for _, l := range lines {
			seen[l.Index] = true
		}
		if len(seen) != m.ShardRuns || torn {
			return fmt.Errorf("merge: %s (shard %s) has %d of its %d runs: finish it with proflab sweep ... --shard %s --resume --out %s",
				dir, m.Shard, len(seen), m.ShardRuns, m.Shard, dir)
		}
		all = append(all, lines...)
	}
	var missing []string
	for k := range first.Shard.Count {
		if _, ok := byShard[k]; !ok {
			missing = append(missing, Shard{k, first.Shard.Count}.String())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("merge: shard %s of %s missing: give every shard's output folder", strings.Join(missing, ", "), first.Sweep)
	}
	results.SortByIndex(all)
	for i, l := range all {
		if l.Index != i {
			return fmt.Errorf("merge: run %d missing or doubled across the shards", i)
		}
	}
	if len(all) != first.Runs {
		return fmt.Errorf("merge: %d runs, the sweep has %d", len(all), first.Runs)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if m, err := readManifest(out); err == nil && m != nil {
		return fmt.Errorf("merge: %s already holds a sweep's results; choose an empty folder", out)
	}
	if err := results.Write(filepath.Join(out, results.FileName), all); err != nil {
		return err
	}
	whole := *first
	whole.Shard, whole.ShardRuns = Whole, first.Runs
	if err := writeManifest(out, whole); err != nil {
		return err
	}
	return report.Write(out)
}
