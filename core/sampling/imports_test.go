package sampling_test

import (
	"testing"

	"github.com/proflab/proflab/core/leaftest"
)

// The statistics are a leaf: the standard library only, so that the
// outputs, the Lua bindings and the comparison with a source all judge
// with one test and nothing else comes along.
func TestSamplingIsALeaf(t *testing.T) {
	leaftest.Check(t, leaftest.Rule{Why: "core/sampling is statistics on counts: it imports nothing of proflab and nothing outside the standard library"})
}
