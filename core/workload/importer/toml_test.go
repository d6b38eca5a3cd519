package importer_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// TestTOMLGolden holds the TOML of the small test files to goldens
// (testdata/NAME.toml; -update rewrites them).
func TestTOMLGolden(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"folded.txt", "perf_g.txt", "perf_events.txt"} {
		im := importFile(t, name, importer.Options{})
		got, err := im.TOML()
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", strings.TrimSuffix(name, ".txt")+".toml")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -run TOMLGolden -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the TOML differs from %s (go test -run TOMLGolden -update rewrites it after a deliberate change)", name, golden)
		}
	}
}

// TestTOMLRoundTrip: the TOML names its source, parses back strictly to
// the same workload, and the same input gives the same bytes.
func TestTOMLRoundTrip(t *testing.T) {
	t.Parallel()
	data := importtest.Synthetic(300, 2000, 3)
	im, err := importer.Import("dir/synth.pb.gz", data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := im.TOML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Imported by `proflab workload import` from dir/synth.pb.gz\n",
		"# sha256: " + im.SHA256 + "\n",
		"# format: pprof; sample type: cpu/nanoseconds\n",
		"# period: 10000000 nanoseconds of cpu\n",
		fmt.Sprintf("# samples: %d\n", im.Samples),
		"create_processes = true\n",
		"instruction_bytes = 1\n",
	} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("the TOML lacks %q", want)
		}
	}
	back, err := workload.Parse("synth.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, im.Spec) {
		t.Error("the TOML parses back to another workload")
	}
	again, err := importer.Import("dir/synth.pb.gz", data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text2, _ := again.TOML()
	if !bytes.Equal(text, text2) {
		t.Error("two imports of the same bytes give different TOML")
	}
	if len(text) > 8<<20 {
		t.Errorf("the TOML of 300 functions and 2000 stacks is %d bytes", len(text))
	}
}

// TestFlat: Flat is the stacks' leaf weights as shares.
func TestFlat(t *testing.T) {
	t.Parallel()
	im := importFile(t, "folded.txt", importer.Options{})
	flat := im.Flat()
	if flat["compute"] != 45.0/125 || flat["intel_idle_[k]"] != 40.0/125 {
		t.Errorf("flat compute %v, intel_idle_[k] %v; want 45/125, 40/125", flat["compute"], flat["intel_idle_[k]"])
	}
	var sum float64
	for _, v := range flat {
		sum += v
	}
	if sum < 1-1e-12 || sum > 1+1e-12 {
		t.Errorf("flat shares add up to %v", sum)
	}
}
