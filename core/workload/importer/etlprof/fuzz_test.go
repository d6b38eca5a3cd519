package etlprof_test

import (
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// FuzzImportETL: on any small trace, the import returns an error or a
// workload that holds the invariants, never a panic. Seeds: the synthetic
// trace of both pointer sizes, in 2 KiB buffers.
func FuzzImportETL(f *testing.F) {
	for _, ptr := range []int{8, 4} {
		seed := appTraceIn(ptr, 2048)
		if _, err := importer.Import("seed.etl", seed, importer.Options{NoSymbolsBeside: true}); err != nil {
			f.Fatalf("the seed of PointerSize %d: %v", ptr, err)
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		for _, arch := range []string{"x64", "x86"} {
			im, err := importer.Import("fuzz.etl", data, importer.Options{Arch: arch, Format: importer.ETL, NoSymbolsBeside: true})
			if err != nil {
				continue
			}
			importtest.CheckInvariants(t, im)
		}
	})
}
