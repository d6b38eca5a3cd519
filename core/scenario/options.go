package scenario

import (
	"io"
	"time"

	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/luavm"
)

// DefaultTimeout is the wall-clock budget of a run when Options.Timeout is
// zero.
const DefaultTimeout = 30 * time.Second

// Options describe one run.
type Options struct {
	// File is the scenario's path. Error messages and checks show it as
	// given; require looks for modules in its folder.
	File string
	// Source, when not nil, is the scenario's text (File then only names
	// it and locates its folder).
	Source []byte
	// Params fill lab.params (from --set or a sweep).
	Params map[string]any
	// Seed seeds math.random and is the default seed of machines (the
	// command line's default is 1).
	Seed uint64
	// Timeout is the wall-clock budget: 0 means DefaultTimeout, a negative
	// value no budget.
	Timeout time.Duration
	// Memory is the memory budget in bytes: 0 means
	// luavm.DefaultMemoryLimit, a negative value no budget. See
	// core/luavm's budget.go and watchdog.go for how it is kept.
	Memory int64
	// Log receives the run's log (print, lab.log) as it is written; it is
	// also kept in Result.Log. nil: kept only.
	Log io.Writer
	// Setup is what the configuration gives every run (zero: the machine
	// defaults of docs/scenario-api.md and the in-process test HALs).
	Setup Setup
	// HALs, when set, is the HAL provider to use (RunAll sets one per
	// worker); otherwise Run makes one from Setup.NewHALs for the run.
	HALs lab.HALProvider
	// WorkloadDirs are the folders besides the scenario's that it may
	// read workload files from (absolute paths): the configuration's
	// [run] workload_dirs and --workload-dir. A path outside the
	// scenario's folder and these is refused (core/luart).
	WorkloadDirs []string
	// NoOutputFolder says the run's output folder (WriteResult) will not
	// be written, so Run skips what only it needs: asking the HALs for
	// every source's interval at the end of the run (the pprof periods),
	// a round trip per source that a sweep's result line does not use.
	NoOutputFolder bool
}

// memory returns the effective memory budget in bytes (0: none).
func (o Options) memory() int64 {
	switch {
	case o.Memory == 0:
		return luavm.DefaultMemoryLimit
	case o.Memory < 0:
		return 0
	}
	return o.Memory
}

// budget returns the effective timeout (0: none).
func (o Options) budget() time.Duration {
	switch {
	case o.Timeout == 0:
		return DefaultTimeout
	case o.Timeout < 0:
		return 0
	}
	return o.Timeout
}
