package apic_test

import (
	"testing"

	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/haltest"
)

func TestConformance(t *testing.T) { haltest.Run(t, apic.New) }
