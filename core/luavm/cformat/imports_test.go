package cformat_test

import (
	"testing"

	"github.com/proflab/proflab/core/leaftest"
)

// TestLeaf keeps cformat a leaf: C's printf conversions, the standard
// library only (it knows nothing of Lua values).
func TestLeaf(t *testing.T) {
	t.Parallel()
	leaftest.Check(t, leaftest.Rule{
		Why:   "cformat is C's printf conversions, over the standard library only",
		Allow: []string{"github.com/proflab/proflab/core/leaftest"},
		Tests: true,
	})
}
