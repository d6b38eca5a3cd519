package importer_test

import (
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// Big is the scale of issue 17: thousands of functions, tens of
// thousands of stacks.
const bigFuncs, bigStacks = 5000, 50000

// BenchmarkImportBig imports the big synthetic profile (detection
// included).
func BenchmarkImportBig(b *testing.B) {
	data := importtest.Synthetic(bigFuncs, bigStacks, 17)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := importer.Import("big.pb.gz", data, importer.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTOMLBig writes the big profile's workload as TOML.
func BenchmarkTOMLBig(b *testing.B) {
	im, err := importer.Import("big.pb.gz", importtest.Synthetic(bigFuncs, bigStacks, 17), importer.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := im.TOML(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestImportBig imports the big synthetic profile and checks the
// import's invariants at that scale (its time is BenchmarkImportBig's:
// a test does not time). Skipped in -short runs.
func TestImportBig(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test")
	}
	im, err := importer.Import("big.pb.gz", importtest.Synthetic(bigFuncs, bigStacks, 17), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := im.TOML(); err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
}
