package pmu_test

import (
	"testing"

	"github.com/proflab/proflab/halplugins/haltest"
	"github.com/proflab/proflab/halplugins/pmu"
)

func TestConformance(t *testing.T) { haltest.Run(t, pmu.New) }
