package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/sweep/report"
	"github.com/proflab/proflab/core/sweep/results"
)

// ManifestName is the name of the file in a sweep's output folder that
// says which sweep and shard the results belong to.
const ManifestName = "sweep.json"

const manifestFormat = 1

// Manifest identifies the sweep and shard whose results a folder holds.
type Manifest struct {
	// Format is the version of the output layout (1).
	Format int `json:"format"`
	// Sweep is the sweep file's path as given.
	Sweep string `json:"sweep"`
	// Hash is the plan's hash (Plan.Hash).
	Hash string `json:"hash"`
	// Runs is the number of runs of the whole sweep.
	Runs int `json:"runs"`
	// Shard is the slice the folder holds ({0, 1}: all of it).
	Shard Shard `json:"shard"`
	// ShardRuns is the number of runs of the shard.
	ShardRuns int `json:"shard_runs"`
	// Inputs are what the runs depended on besides what Hash covers: the
	// proflab that ran them ("proflab"), each HAL plugin's executable
	// ("plugin NAME": its sha256), and each file the runs read (modules
	// required from the scenario's folder, workload files: its path,
	// relative to the sweep file's folder when inside it, and sha256).
	// Resumed runs and merged shards must agree on them.
	Inputs map[string]string `json:"inputs,omitempty"`
	// Mixed are the Inputs of which the runs saw more than one version
	// (only with --allow-mixed).
	Mixed []string `json:"mixed,omitempty"`
	// ParamsRead are the sweep's parameters some run read from lab.params
	// (or that [config] sets); Unread the others: an axis nobody reads
	// (a misspelt name) changes nothing, and the sweep says so.
	ParamsRead []string `json:"params_read,omitempty"`
	Unread     []string `json:"unread_params,omitempty"`
	// Units and Plots are the sweep file's [units] and [[plot]], which
	// the reports draw with (proflab report --sweep replaces them).
	Units []report.Unit     `json:"units,omitempty"`
	Plots []report.PlotSpec `json:"plots,omitempty"`
	// Labels and Formats are the sweep file's [labels] and [report]
	// formats (proflab report --sweep and --format replace them).
	Labels  []report.Label `json:"labels,omitempty"`
	Formats []string       `json:"formats,omitempty"`
	// Plan is what the runs' ids, params and seeds are computed from, so
	// that report and merge hold results.jsonl's lines to the sweep
	// (results.Validate) without the sweep file; nil in a folder of an
	// older proflab, or when the axes would make sweep.json larger than
	// maxPlanRecord (then only a line's index is checked there; --resume
	// has the sweep file and checks all).
	Plan *PlanRecord `json:"plan,omitempty"`
}

// PlanRecord is a plan's parameters after --set: enough to compute every
// run from its index (Plan.Run).
type PlanRecord struct {
	Seed    uint64         `json:"seed"`
	Repeats int            `json:"repeats"`
	Grid    []Axis         `json:"grid,omitempty"`
	Zip     []Axis         `json:"zip,omitempty"`
	Set     map[string]any `json:"set,omitempty"`
}

// maxPlanRecord bounds the plan sweep.json records (a sweep whose axes
// list millions of values leaves it out), well below what sweep.json is
// read up to.
const maxPlanRecord = 4 << 20

// planRecord is plan's record for sweep.json, or nil past maxPlanRecord.
func planRecord(plan *Plan) *PlanRecord {
	f := plan.File
	r := &PlanRecord{Seed: f.Seed, Repeats: f.Repeats, Grid: f.Grid, Zip: f.Zip, Set: f.Set}
	if b, err := json.Marshal(r); err != nil || len(b) > maxPlanRecord {
		return nil
	}
	return r
}

// runs are the runs of the sweep m is the manifest of, for
// results.Validate: computed from its plan record, or known by their
// number alone.
func (m *Manifest) runs() (results.Runs, error) {
	if m.Plan == nil {
		return results.RunCount(m.Runs), nil
	}
	f := &File{Seed: m.Plan.Seed, Repeats: m.Plan.Repeats, Grid: m.Plan.Grid, Zip: m.Plan.Zip, Set: m.Plan.Set}
	if f.Set == nil {
		f.Set = map[string]any{}
	}
	plan := &Plan{File: f, points: f.points()}
	if f.Repeats < 1 || plan.Len() != m.Runs {
		return nil, fmt.Errorf("%s: its plan makes %d runs, but it says the sweep has %d: the file was edited; run the sweep again into a new folder", ManifestName, plan.Len(), m.Runs)
	}
	return plan, nil
}

// MarshalJSON writes the shard as "K/N".
func (s Shard) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads "K/N".
func (s *Shard) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	v, _, err := ParseShard(str, func(string) string { return "" })
	if err != nil {
		return err
	}
	*s = v
	return nil
}

func writeManifest(dir string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	// whole or not at all: a torn sweep.json would make the folder
	// nobody's
	return writeFileAtomic(filepath.Join(dir, ManifestName), append(b, '\n'))
}

// ReadManifest reads the manifest of the output folder dir.
func ReadManifest(dir string) (*Manifest, error) { return readManifest(dir) }

// manifestKind is what sweep.json is to core/input: a regular file of at
// most 16 MiB (a sweep's runs reading a hundred thousand files record
// about 10 MiB of inputs).
var manifestKind = input.Kind{Name: "sweep manifest", Limit: 16 << 20}

func readManifest(dir string) (*Manifest, error) {
	b, err := input.ReadFile(manifestKind, filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, err
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // the plan's values keep their text, as the runs' ids hashed it
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestName), err)
	}
	if m.Format != manifestFormat {
		return nil, fmt.Errorf("%s: output format %d, this proflab writes %d", filepath.Join(dir, ManifestName), m.Format, manifestFormat)
	}
	return &m, nil
}
