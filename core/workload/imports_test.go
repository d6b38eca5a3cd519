package workload_test

import (
	"testing"

	"github.com/proflab/proflab/core/leaftest"
)

// TestWorkloadIsALeaf keeps the workload model plain data: TOML in,
// checked values out, no kernel, Lua, plugin or simulator code.
func TestWorkloadIsALeaf(t *testing.T) {
	t.Parallel()
	leaftest.Check(t, leaftest.Rule{Why: "the workload model is data: it may read TOML but imports no kernel, Lua, plugin or simulator code", Allow: []string{
		"github.com/proflab/proflab/core/input",
		"github.com/proflab/proflab/core/suggest",
		"github.com/proflab/proflab/core/tomlstrict",
		"github.com/proflab/proflab/core/suggest", // tomlstrict's "did you mean" (stdlib only)
		"github.com/BurntSushi/toml/...",
	}})
}
