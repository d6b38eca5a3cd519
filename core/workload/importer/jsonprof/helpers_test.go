package jsonprof_test

import (
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// testdata holds the importers' test files: one folder beside the entry point, which
// every format package's tests, core/lab's and cmd/proflab's read.
const testdata = "../testdata"

// x86 is the target tests resolve for.
var x86 = importtest.X86

// importFile imports ../testdata/name (named name) with opt, failing t on
// error, and checks the workload's invariants.
func importFile(t *testing.T, name string, opt importer.Options) *importer.Imported {
	t.Helper()
	return importtest.ImportFile(t, testdata, name, opt)
}

// readTestdata reads ../testdata/name.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	return importtest.ReadFile(t, testdata, name)
}
