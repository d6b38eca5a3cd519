package sweeps_test

import (
	"testing"
	"time"
)

// waitEmpty polls done every 200 ms for up to two minutes.
func waitEmpty(t *testing.T, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatal("the Slurm jobs did not finish in two minutes")
		}
		time.Sleep(200 * time.Millisecond)
	}
}
