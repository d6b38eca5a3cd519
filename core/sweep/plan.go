package sweep

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"sort"
	"strings"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/sweep/results"
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

// Plan is a sweep ready to run: the hash that tells its outputs from
// another sweep's, its runs' configurations, and its runs, each computed
// from its index when asked for (Run, ShardRuns) rather than listed, so
// that planning, listing or running one shard of a sweep takes memory
// independent of the number of runs.
type Plan struct {
	File *File
	// Hash is the sha256 of the sweep file's text, the --set overrides,
	// the scenario's text and the lab configuration's text: shards and
	// resumed outputs of a plan with another hash are refused.
	Hash string
	// Configs are the runs' configurations by the runs' overrides joined
	// with newlines (each loaded and checked once).
	Configs map[string]*config.Config

	points      int                // grid points: the product of the axes' lengths, times the zip's
	config      []string           // the parameters of [config], by configuration key
	configOrder []string           // the keys of Configs in the order of the runs that first use them
	checked     map[string]checked // the configurations in force, by key (Check)
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
	for _, in := range []struct {
		kind input.Kind
		path string
	}{{input.Scenario, f.Scenario}, {input.Config, f.ConfigFile}} {
		if in.path == "" {
			continue
		}
		b, err := input.ReadFile(in.kind, in.path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		fmt.Fprintf(h, "%d\n%s", len(b), b)
	}
	plan := &Plan{File: f, Hash: hex.EncodeToString(h.Sum(nil)), Configs: map[string]*config.Config{}, points: f.points()}
	plan.config = sortedKeys(f.Config)
	sort.Slice(plan.config, func(i, j int) bool { return f.Config[plan.config[i]] < f.Config[plan.config[j]] })
	if err := plan.loadConfigs(); err != nil {
		return nil, err
	}
	return plan, nil
}

// Len is the number of runs of the sweep.
func (plan *Plan) Len() int { return plan.points * plan.File.Repeats }

// Run returns the run at index i (0 ≤ i < Len): grid axes in name order,
// the first outermost, then the zipped lists, then the repeats.
func (plan *Plan) Run(i int) Run {
	f := plan.File
	point, repeat := i/f.Repeats, i%f.Repeats
	p := plan.params(point)
	id := RunID(p, repeat)
	return Run{Index: i, ID: id, Params: p, Repeat: repeat, Seed: SeedFor(f.Seed, id), Overrides: plan.overrides(p)}
}

// Expect is the run at index i as results.Validate holds a line to it:
// the plan is a results.Runs.
func (plan *Plan) Expect(i int) (results.Expected, bool) {
	r := plan.Run(i)
	return results.Expected{ID: r.ID, Params: r.Params, Seed: r.Seed}, true
}

// params are the parameters of grid point n.
func (plan *Plan) params(n int) map[string]any {
	f := plan.File
	p := make(map[string]any, len(f.Grid)+len(f.Zip)+len(f.Set))
	if len(f.Zip) > 0 {
		z := n % len(f.Zip[0].Values)
		n /= len(f.Zip[0].Values)
		for _, ax := range f.Zip {
			p[ax.Name] = ax.Values[z]
		}
	}
	for j := len(f.Grid) - 1; j >= 0; j-- {
		ax := f.Grid[j]
		p[ax.Name] = ax.Values[n%len(ax.Values)]
		n /= len(ax.Values)
	}
	for k, v := range f.Set {
		p[k] = v
	}
	return p
}

// ShardLen is the number of runs of the plan in shard s.
func (plan *Plan) ShardLen(s Shard) int {
	if s.Count <= 1 {
		return plan.Len()
	}
	n := plan.Len()
	if s.Index >= n {
		return 0
	}
	return (n - s.Index + s.Count - 1) / s.Count
}

// ShardRun is the run at position k (0 ≤ k < ShardLen) of shard s: run
// i belongs to shard i mod Count.
func (plan *Plan) ShardRun(s Shard, k int) Run {
	if s.Count <= 1 {
		return plan.Run(k)
	}
	return plan.Run(s.Index + k*s.Count)
}

// ShardPos is the position in shard s of the run at index i, or -1 when
// the run is not in s.
func (plan *Plan) ShardPos(s Shard, i int) int {
	if i < 0 || i >= plan.Len() {
		return -1
	}
	if s.Count <= 1 {
		return i
	}
	if i%s.Count != s.Index {
		return -1
	}
	return i / s.Count
}

// ShardRuns yields the runs of the plan in shard s, in index order.
func (plan *Plan) ShardRuns(s Shard) iter.Seq[Run] {
	return func(yield func(Run) bool) {
		for k := range plan.ShardLen(s) {
			if !yield(plan.ShardRun(s, k)) {
				return
			}
		}
	}
}

// overrides are a grid point's configuration overrides, "key=value" in
// key order.
func (plan *Plan) overrides(p map[string]any) []string {
	var over []string
	for _, name := range plan.config {
		over = append(over, plan.File.Config[name]+"="+literal(p[name]))
	}
	return over
}

// loadConfigs loads and checks the configuration of each distinct set of
// [config] overrides, in the order of the runs that first use them, so
// that the first bad one is the one the first run would meet. It walks
// only the axes [config] reads, so its cost does not grow with the other
// axes or the repeats.
func (plan *Plan) loadConfigs() error {
	f := plan.File
	var axes []Axis // the grid axes [config] reads, in run order, then the zip
	for _, ax := range f.Grid {
		if _, ok := f.Config[ax.Name]; ok {
			axes = append(axes, ax)
		}
	}
	zipped := false
	for _, ax := range f.Zip {
		if _, ok := f.Config[ax.Name]; ok {
			zipped = true
		}
	}
	if zipped {
		axes = append(axes, Axis{Name: "\x00zip", Values: make([]any, len(f.Zip[0].Values))})
	}
	idx := make([]int, len(axes))
	for {
		p := map[string]any{}
		for k, v := range f.Set {
			p[k] = v
		}
		for j, ax := range axes {
			if ax.Name == "\x00zip" {
				for _, z := range f.Zip {
					p[z.Name] = z.Values[idx[j]]
				}
				continue
			}
			p[ax.Name] = ax.Values[idx[j]]
		}
		if err := plan.loadConfig(p); err != nil {
			return err
		}
		j := len(axes) - 1
		for ; j >= 0; j-- {
			if idx[j]++; idx[j] < len(axes[j].Values) {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return nil
		}
	}
}

// loadConfig loads (once per distinct set) the configuration that grid
// point p's overrides give.
func (plan *Plan) loadConfig(p map[string]any) error {
	f := plan.File
	over := plan.overrides(p)
	key := strings.Join(over, "\n")
	if _, done := plan.Configs[key]; done {
		return nil
	}
	cfg, err := config.Load(f.ConfigFile)
	if err != nil {
		return fmt.Errorf("%s: config_file: %w", f.Path, err)
	}
	for i, o := range over {
		where := fmt.Sprintf("%s:%d", f.Path, f.Line("config", plan.config[i]))
		if err := cfg.SetAt(where, o); err != nil {
			return fmt.Errorf("%v (the [config] line %s = %q with %s = %s)", err, plan.config[i], f.Config[plan.config[i]], plan.config[i], literal(p[plan.config[i]]))
		}
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%s: with [config] overrides %s: %v", f.Path, strings.Join(over, ", "), err)
	}
	plan.Configs[key] = cfg
	plan.configOrder = append(plan.configOrder, key)
	return nil
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
