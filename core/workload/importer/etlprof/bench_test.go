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

// manySamples is a trace of n timer samples of app.exe's 8 threads, each
// with a plain stack of 8 frames, nearly every stack distinct (the worst
// case for the stacks' memory).
func manySamples(n int) []byte {
	s := &synth{ptr: 8}
	s.process(100, "app.exe")
	for i := range 8 {
		s.thread(100, uint32(101+i))
	}
	s.image(100, 0x400000, 0x100000, `C:\app\app.exe`)
	s.image(0, 0xFFFFF80000400000, 0x100000, `\SystemRoot\system32\ntoskrnl.exe`)
	s.interval(5, 0, 1250, "Timer")
	for i := range n {
		tm := int64(10 + i)
		tid := uint32(101 + i%8)
		ip := 0x400000 + uint64(i*37%0x10000)
		s.sample(tm, tid, ip)
		s.stack(tm, 100, tid, ip, 0x410000+uint64(i%50)*16, 0x420000+uint64(i%7)*16, 0x430000, 0x430100, 0x430200, 0x430300, 0x430400)
	}
	return s.bytes()
}

// BenchmarkImportManyStacks imports 200,000 samples with distinct stacks
// (a 24 MB trace).
func BenchmarkImportManyStacks(b *testing.B) {
	data := manySamples(200_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := importer.Import("many.etl", data, importer.Options{NoSymbolsBeside: true}); err != nil {
			b.Fatal(err)
		}
	}
}
