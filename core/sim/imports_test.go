package sim_test

import (
	"testing"

	"github.com/proflab/proflab/core/leaftest"
)

// TestSimIsALeaf keeps the simulator free of the plugin host, gRPC,
// go-plugin and Lua: it imports the kernel, the HAL contract and the
// workload model, and the composition root (core/lab) wires it to the
// rest. Its tests too: the tests of the assembled lab are core/lab's.
func TestSimIsALeaf(t *testing.T) {
	t.Parallel()
	leaftest.Check(t, leaftest.Rule{Why: "the simulator and its tests import only the kernel, the HAL contract and the workload model (no plugin host, configuration, gRPC, go-plugin or Lua; core/lab does the wiring)", Tests: true, Allow: []string{
		"github.com/proflab/proflab/core/leaftest",
		"github.com/proflab/proflab/core/workload",
		"github.com/proflab/proflab/core/input",   // the workload reads its files through it (stdlib only)
		"github.com/proflab/proflab/core/suggest", // the workload's "did you mean" (stdlib only)
		"github.com/proflab/proflab/core/tomlstrict",
		"github.com/proflab/proflab/core/suggest", // tomlstrict's "did you mean" (stdlib only)
		"github.com/BurntSushi/toml/...",
		"github.com/proflab/proflab/kernel/...",
		"github.com/proflab/proflab/halplugins/hal",
	}})
}
