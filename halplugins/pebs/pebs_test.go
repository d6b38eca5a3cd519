package pebs_test

import (
	"testing"

	"github.com/proflab/proflab/halplugins/pebs"
	"github.com/proflab/proflab/halplugins/haltest"
)

func TestConformance(t *testing.T) { haltest.Run(t, pebs.New) }
