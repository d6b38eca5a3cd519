package scenario

import (
	"slices"
	"time"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/luart"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/workload/importer"
)

// Check is one lab.check: whether it passed, the scenario's file:line and
// its message.
type Check = luart.Check

// Error is why a run stopped with an error: its kind (lua, bug, timeout,
// interrupted, input, plugin), the message with file:line, the Lua
// traceback and, for bugs, the Go stack.
type Error = runerr.Error

// Status is a run's outcome.
type Status string

// The outcomes of a run.
const (
	StatusPassed Status = "passed" // no error, every check passed
	StatusFailed Status = "failed" // no error, a check failed
	StatusError  Status = "error"  // the scenario raised, timed out or hit a bug
)

// Result is everything a run produced.
type Result struct {
	// ProflabVersion is the proflab that ran it (core/version).
	ProflabVersion string `json:"proflab_version"`
	// Plugins are the configured HALs' plugins: path, sha256, protocol.
	Plugins []halhost.Plugin `json:"plugins,omitempty"`
	// Inputs are the files the run read besides its scenario and
	// configuration (modules required from the scenario's folder,
	// workload files), by absolute path, with the sha256 of what was
	// read, in hex (JSON writes them sorted by path). A file read twice
	// has the sha256 of its last reading.
	Inputs map[string]string `json:"inputs,omitempty"`
	// InputVersions are the files of Inputs the run read in more than
	// one version (replaced between two readings), with the sha256 of
	// every version read, in the order first read: a sweep counts such
	// a file as mixed.
	InputVersions map[string][]string `json:"input_versions,omitempty"`
	Scenario      string              `json:"scenario"`
	Status        Status              `json:"status"`
	Seed          uint64              `json:"seed"`
	Params        map[string]any      `json:"params"`
	Records       map[string]any      `json:"records"`
	Checks        []Check             `json:"checks"`
	Error         *Error              `json:"error"`
	// Machines are the interrupt counts of the machines the run made, per
	// source and processor.
	Machines []output.MachineSummary `json:"machines,omitempty"`
	// Files are the output files WriteResult wrote beside result.json.
	Files []string `json:"files,omitempty"`
	// Warnings are what the outputs left out (a trace cut at its size
	// limit).
	Warnings []string `json:"warnings,omitempty"`
	// Accuracy is each sampled profile's distance from the ground truth
	// (accuracy.csv has it per function).
	Accuracy []output.ProfileAccuracy `json:"accuracy,omitempty"`
	// Summary says in a line per sampled profile how far it is from the
	// truth ("profile-m1-pid12-h4-ProfileTime.pb.gz: within sampling
	// error: …"), as Accuracy's verdicts.
	Summary []string `json:"summary,omitempty"`
	Log     string   `json:"-"`
	// Imports are the profiles the run imported as workloads, for the
	// output folder's comparison with their source (comparison.txt).
	Imports []*importer.Imported `json:"-"`
	// ParamsRead are the parameters the scenario read from lab.params.
	ParamsRead []string `json:"-"`
	// Outputs are the machines and trace sessions the run made, for
	// WriteResult's profile, bucket and trace files.
	Outputs *output.Registry `json:"-"`
	// Config is the resolved configuration of the run (nil: the default).
	Config  *config.Config `json:"-"`
	Timings Timings        `json:"timings"`

	// budget is the run's time and memory budgets, which WriteResult
	// keeps while it writes the outputs (Run sets it; zero: none).
	budget budget
}

// budget is a run's budgets: its wall-clock time (0: none) and memory in
// bytes (0: none).
type budget struct {
	timeout time.Duration
	memory  int64
}

// Timings are the wall-clock measurements of a run: the only part of a
// result that is not a function of the scenario, its parameters and seed,
// kept apart so that comparisons and golden files can leave it out.
type Timings struct {
	Wall time.Duration `json:"-"`
	// WallSeconds is Wall in seconds, for JSON.
	WallSeconds float64 `json:"wall_seconds"`
}

// Passed reports whether the run had no error and every check passed.
func (r Result) Passed() bool { return r.Status == StatusPassed }

// Failed returns the checks that failed, in order.
func (r Result) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.Passed {
			out = append(out, c)
		}
	}
	return out
}

// status computes Status from the error and checks.
func (r Result) status() Status {
	switch {
	case r.Error != nil:
		return StatusError
	case len(r.Failed()) > 0:
		return StatusFailed
	}
	return StatusPassed
}

// UnreadParams are the run's parameters (Params) the scenario never read
// from lab.params, sorted: a misspelt --set changes nothing, and a
// command that ran it says so.
func (r Result) UnreadParams() []string {
	var out []string
	for name := range r.Params {
		if !slices.Contains(r.ParamsRead, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
