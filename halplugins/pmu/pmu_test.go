package pmu_test

import (
	"testing"

	"github.com/proflab/proflab/halplugins/pmu"
	"github.com/proflab/proflab/halplugins/haltest"
)

func TestConformance(t *testing.T) { haltest.Run(t, pmu.New) }
