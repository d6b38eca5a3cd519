package etlprof_test

import (
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// BenchmarkImportX86Trace imports the 4.4 MB PerfView trace (3.5 MB
// zipped; 276 buffers, 275 compressed), every process: inflating the
// zip, decompressing the buffers, decoding 180,000 records, joining 12,000
// stack events, naming and laying out the workload.
func BenchmarkImportX86Trace(b *testing.B) {
	data := importtest.ReadFile(b, testdata, x86Zip)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := importer.Import(x86Zip, data, importer.Options{NoSymbolsBeside: true}); err != nil {
			b.Fatal(err)
		}
	}
}
