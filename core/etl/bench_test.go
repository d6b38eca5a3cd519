package etl_test

import (
	"bytes"
	"testing"

	"github.com/proflab/proflab/core/etl"
)

// BenchmarkReadX86Trace reads every record of the 4.4 MB PerfView trace
// (275 compressed buffers): the reader's own cost, without decoding
// payloads.
func BenchmarkReadX86Trace(b *testing.B) {
	data := traceBytes(b, x86Zip)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := drain(etl.NewReader(bytes.NewReader(data)), nil); err != nil {
			b.Fatal(err)
		}
	}
}
