package luavm

import (
	"testing"

	"github.com/proflab/proflab/core/leaftest"
)

// TestInterpreterImportsNoModel keeps the interpreter apart from the lab:
// it and its tests depend on gopher-lua, its own leaves cformat (C's
// printf conversions) and lpattern (Lua's patterns, interruptible) and three small leaves of core/ (runerr's error
// kinds, input's guarded file reads, suggest's spelling hints), never on a model package (kernel, sim, workload, lab, output,
// halhost, importer, config) or on the proflab module built on it, so it
// is tested without building a machine.
func TestInterpreterImportsNoModel(t *testing.T) {
	t.Parallel()
	leaftest.Check(t, leaftest.Rule{
		Why: "the sandboxed interpreter knows no model: the lab's bindings belong in core/luart",
		Allow: []string{
			"github.com/yuin/gopher-lua/...",
			"github.com/proflab/proflab/core/luavm/cformat",
			"github.com/proflab/proflab/core/luavm/lpattern",
			"github.com/proflab/proflab/core/runerr",
			"github.com/proflab/proflab/core/input",
			"github.com/proflab/proflab/core/suggest",
			"github.com/proflab/proflab/core/leaftest",
		},
		Tests: true,
	})
}
