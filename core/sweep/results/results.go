// Package results is the format of a sweep's results.jsonl: one JSON
// object per finished run, appended and flushed as each run finishes, and
// the readers that resume, merge and report from it.
//
// A line holds everything about a run that is a function of the sweep file
// and its seed; wall-clock measurements live in its "timings" field alone,
// which comparisons leave out ([Line.WithoutTimings]).
package results

import (
	"encoding/json"
	"math"
	"regexp"
	"sort"
)

// FileName is the name of the results file in a sweep's output folder.
const FileName = "results.jsonl"

// Status is a run's outcome in a sweep.
type Status string

// The outcomes of a run. See [StatusOf] for how a scenario's result maps
// to them.
const (
	// StatusOK: no error and every check passed.
	StatusOK Status = "ok"
	// StatusFailed: a check failed, or the lab under the scenario failed
	// (a HAL plugin crashed, hung or answered nonsense; the run's time
	// budget ran out).
	StatusFailed Status = "failed"
	// StatusError: the scenario raised a Lua error, could not be read, or
	// proflab hit a bug.
	StatusError Status = "error"
)

// Check is one lab.check of a run.
type Check struct {
	Passed  bool   `json:"passed"`
	Where   string `json:"where"`
	Message string `json:"message"`
}

// Error is why a run stopped early: its kind (lua, bug, timeout, input,
// plugin), the message with file:line, and the Lua traceback.
type Error struct {
	Kind      string `json:"kind"`
	Message   string `json:"message"`
	Where     string `json:"where,omitempty"` // the file:line it was raised at, where known
	Traceback string `json:"traceback,omitempty"`
}

// Timings are a run's wall-clock measurements, the only nondeterministic
// part of a line.
type Timings struct {
	WallSeconds float64 `json:"wall_seconds"`
}

// Line is one finished run.
type Line struct {
	// Index is the run's place in the whole sweep's expansion (0-based),
	// the order of the final results.jsonl whatever the workers or shards.
	Index int `json:"index"`
	// ID is a hash of the run's parameters and repeat index.
	ID string `json:"id"`
	// Params are the run's lab.params.
	Params map[string]any `json:"params"`
	// Repeat counts the runs of one grid point from 0.
	Repeat int `json:"repeat"`
	// Seed is the run's seed, derived from the master seed and the id.
	Seed uint64 `json:"seed"`
	// Status is ok, failed or error.
	Status Status `json:"status"`
	// Metrics are what the scenario gave lab.record.
	Metrics map[string]any `json:"metrics"`
	// Checks are the run's lab.check calls, in order.
	Checks []Check `json:"checks"`
	// Interrupts are the simulator's delivered interrupts by source
	// name, summed over the machines of the run.
	Interrupts map[string]uint64 `json:"interrupts"`
	// Error is why the run stopped early, or nil.
	Error *Error `json:"error"`
	// Timings are wall-clock measurements.
	Timings Timings `json:"timings"`
}

// Marshal renders the line as one line of JSON with its newline. Map keys
// are sorted, so equal lines are equal bytes; a NaN or infinite metric
// (which JSON cannot hold) is written as the string "NaN", "+Inf" or
// "-Inf".
func (l Line) Marshal() ([]byte, error) {
	l.Metrics = sanitize(l.Metrics).(map[string]any)
	l.Params = sanitize(l.Params).(map[string]any)
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WithoutTimings returns the line with zero timings, for comparisons.
func (l Line) WithoutTimings() Line {
	l.Timings = Timings{}
	return l
}

// sanitize replaces the floats JSON cannot hold by strings.
func sanitize(v any) any {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN"
		case math.IsInf(x, 1):
			return "+Inf"
		case math.IsInf(x, -1):
			return "-Inf"
		}
	case map[string]any:
		if x == nil {
			return map[string]any{}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = sanitize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sanitize(e)
		}
		return out
	}
	return v
}

var (
	pidRe   = regexp.MustCompile(`\bpid \d+`)
	stackRe = regexp.MustCompile(`\n+goroutine \d+ \[[^\]\n]*\]:\n(?s:.*)`)
)

// Scrub removes what varies between identical runs from an error message,
// so that a failure reads the same whatever worker or process hit it: a
// process id ("pid 1234" becomes "pid N"), and a Go goroutine dump (a
// plugin that put its panic's stack into its error: goroutine ids and
// addresses), which is cut with a pointer to the run's log. proflab's
// own messages hold neither (pids and stacks go to the logs); this is
// for plugins that do.
func Scrub(msg string) string {
	msg = stackRe.ReplaceAllString(msg, " (a Go stack followed; the run's log has it)")
	return pidRe.ReplaceAllString(msg, "pid N")
}

// SortByIndex sorts lines by their index in the sweep.
func SortByIndex(ls []Line) {
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Index < ls[j].Index })
}
