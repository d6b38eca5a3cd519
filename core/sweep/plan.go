package sweep

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/proflab/proflab/core/config"
)

// Run is one run of a sweep.
type Run struct {
	// Index is the run's place in the expansion: grid axes in name order,
	// the first outermost, then the zipped lists, then the repeats.
	Index int
	// ID is the first 16 hex digits of the sha256 of the canonical JSON
	// of the parameters and the repeat index: the same run has the same id
	// in any sweep that contains it.
	ID string
	// Params are the run's lab.params.
	Params map[string]any
	// Repeat counts the runs of one grid point from 0.
	Repeat int
	// Seed derives from the master seed and the id (see SeedFor).
	Seed uint64
	// Overrides are the configuration overrides of the run,
	// "key=value" in key order ([config]).
	Overrides []string
}

// Plan is an expanded sweep: every run, and the hash that tells its
// outputs from another sweep's.
type Plan struct {
	File *File
	// Hash is the sha256 of the sweep file's text, the --set overrides,
	// the scenario's text and the lab configuration's text: shards and
	// resumed outputs of a plan with another hash are refused.
	Hash string
	Runs []Run
	// Configs are the runs' configurations by the runs' overrides joined
	// with newlines (each loaded and checked once).
	Configs map[string]*config.Config
}

// Expand builds the plan of f with the command line's --set values
// (pinned over [grid], [zip] and [set]). It loads the lab configuration
// with each distinct [config] override, so a bad override is reported
// before any run starts.
func Expand(f *File, sets map[string]any) (*Plan, error) {
	h := sha256.New()
	fmt.Fprintf(h, "proflab sweep 1\n%s\n", f.data)
	for _, k := range sortedKeys(sets) {
		if err := f.Override(k, sets[k]); err != nil {
			return nil, err
		}
		b, _ := json.Marshal(sets[k])
		fmt.Fprintf(h, "--set %s=%s\n", k, b)
	}
	for _, p := range []string{f.Scenario, f.ConfigFile} {
		if p == "" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		fmt.Fprintf(h, "%d\n%s", len(b), b)
	}
	plan := &Plan{File: f, Hash: hex.EncodeToString(h.Sum(nil)), Configs: map[string]*config.Config{}}

	points := []map[string]any{{}}
	for _, ax := range f.Grid {
		next := make([]map[string]any, 0, len(points)*len(ax.Values))
		for _, p := range points {
			for _, v := range ax.Values {
				next = append(next, with(p, ax.Name, v))
			}
		}
		points = next
	}
	if len(f.Zip) > 0 {
		next := make([]map[string]any, 0, len(points)*len(f.Zip[0].Values))
		for _, p := range points {
			for i := range f.Zip[0].Values {
				q := p
				for _, ax := range f.Zip {
					q = with(q, ax.Name, ax.Values[i])
				}
				next = append(next, q)
			}
		}
		points = next
	}
	for _, p := range points {
		for k, v := range f.Set {
			p[k] = v
		}
		over, err := plan.overrides(p)
		if err != nil {
			return nil, err
		}
		for r := range f.Repeats {
			id := RunID(p, r)
			plan.Runs = append(plan.Runs, Run{
				Index: len(plan.Runs), ID: id, Params: p, Repeat: r,
				Seed: SeedFor(f.Seed, id), Overrides: over,
			})
		}
	}
	return plan, nil
}

// with returns a copy of p with k = v.
func with(p map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(p)+1)
	for a, b := range p {
		out[a] = b
	}
	out[k] = v
	return out
}

// overrides computes a grid point's configuration overrides and loads
// (once per distinct set) the configuration they give.
func (plan *Plan) overrides(p map[string]any) ([]string, error) {
	f := plan.File
	var over []string
	names := sortedKeys(f.Config)
	sort.Slice(names, func(i, j int) bool { return f.Config[names[i]] < f.Config[names[j]] })
	for _, name := range names {
		over = append(over, f.Config[name]+"="+literal(p[name]))
	}
	key := strings.Join(over, "\n")
	if _, done := plan.Configs[key]; done {
		return over, nil
	}
	cfg, err := config.Load(f.ConfigFile)
	if err != nil {
		return nil, fmt.Errorf("%s: config_file: %w", f.Path, err)
	}
	for i, o := range over {
		if err := cfg.Set(o); err != nil {
			line := f.Line("config", names[i])
			return nil, fmt.Errorf("%s:%d: key \"config.%s\": %v", f.Path, line, names[i], err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%s: with [config] overrides %s: %v", f.Path, strings.Join(over, ", "), err)
	}
	plan.Configs[key] = cfg
	return over, nil
}

// RunID is the id of the run with parameters p and repeat index r.
func RunID(p map[string]any, r int) string {
	b, err := json.Marshal(struct {
		Params map[string]any `json:"params"`
		Repeat int            `json:"repeat"`
	}{p, r})
	if err != nil {
		panic("sweep: parameters that JSON cannot hold: " + err.Error()) // ReadFile accepts scalars only
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// SeedFor derives a run's seed from the master seed and the run's id: the
// first 8 bytes of sha256("proflab seed", master, id), kept below 2^53 so
// that Lua's numbers hold it exactly.
func SeedFor(master uint64, id string) uint64 {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], master)
	h.Write([]byte("proflab seed\x00"))
	h.Write(b[:])
	h.Write([]byte(id))
	return binary.BigEndian.Uint64(h.Sum(nil)) & (1<<53 - 1)
}

// Shard is a deterministic slice of a sweep: run i belongs to shard
// i mod Count.
type Shard struct {
	Index, Count int
}

// String renders "K/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Whole is the shard of an unsharded sweep.
var Whole = Shard{0, 1}

// Runs returns the runs of the plan in shard s.
func (plan *Plan) ShardRuns(s Shard) []Run {
	if s.Count <= 1 {
		return plan.Runs
	}
	var out []Run
	for _, r := range plan.Runs {
		if r.Index%s.Count == s.Index {
			out = append(out, r)
		}
	}
	return out
}
