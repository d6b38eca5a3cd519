package importer_test

import (
	"flag"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// update rewrites the TOML goldens testdata/NAME.toml (TestTOMLGolden).
var update = flag.Bool("update", false, "rewrite the TOML goldens testdata/NAME.toml")

// testdata holds the importers' test files (the format packages' tests, core/lab's and
// cmd/proflab's read them here too).
const testdata = "testdata"

// x64 and x86 are the targets tests resolve for.
var x64, x86 = importtest.X64, importtest.X86

// importFile imports testdata/name (named name) with opt, failing t on
// error, and checks the workload's invariants.
func importFile(t *testing.T, name string, opt importer.Options) *importer.Imported {
	t.Helper()
	return importtest.ImportFile(t, testdata, name, opt)
}

// readTestdata reads testdata/name.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	return importtest.ReadFile(t, testdata, name)
}
