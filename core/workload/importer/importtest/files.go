package importtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
)

// ReadFile reads the test file name in dir, failing t if it cannot.
func ReadFile(t testing.TB, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ImportFile imports the test file name in dir (named name) with opt,
// failing t on error, and checks the workload's invariants
// (CheckInvariants).
func ImportFile(t testing.TB, dir, name string, opt importer.Options) *importer.Imported {
	t.Helper()
	im, err := importer.Import(name, ReadFile(t, dir, name), opt)
	if err != nil {
		t.Fatalf("Import(%s): %v", name, err)
	}
	CheckInvariants(t, im)
	return im
}
