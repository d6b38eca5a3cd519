package pebs_test

import (
	"testing"

	"github.com/proflab/proflab/halplugins/haltest"
	"github.com/proflab/proflab/halplugins/pebs"
)

func TestConformance(t *testing.T) { haltest.Run(t, pebs.New) }
