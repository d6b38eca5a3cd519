package output_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The pprof profile of a call-tree workload under the timer and under a
// counter, decoded and printed as pprof's own text form (sample types,
// samples with their stacks and labels, locations, mappings): the
// profile proflab writes, field by field (go test ./core/output -update
// rewrites the goldens).
func TestPprofGolden(t *testing.T) {
	for _, tc := range []struct {
		name     string
		src      nt.Source
		interval uint32
	}{
		{"timer", nt.ProfileTime, 1221},
		{"counter", nt.ProfileTotalIssues, 100_003},
	} {
		p := readProfile(t, profileOf(t, tc.src, tc.interval, callWorkload, 7))
		got := p.String()
		path := filepath.Join("testdata", "pprof-"+tc.name+".golden")
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./core/output -update writes it)", err)
		}
		if got != string(want) {
			t.Errorf("the %s profile differs from %s (-update if the change is intended):\n%s", tc.name, path, got)
		}
	}
}
