package hal

import (
	"testing"

	"github.com/proflab/proflab/core/leaftest"
)

// TestHALContractImportsOnlyStdlib keeps the HAL contract a leaf that a
// plugin author imports alone: the standard library and the NT constants
// (kernel/nt, itself standard-library only), nothing else.
func TestHALContractImportsOnlyStdlib(t *testing.T) {
	t.Parallel()
	leaftest.Check(t, leaftest.Rule{
		Why:   "the HAL contract is standard library only (plus kernel/nt's constants)",
		Allow: []string{"github.com/proflab/proflab/kernel/nt"},
	})
}
