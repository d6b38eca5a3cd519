package etl_test

import (
	"bytes"
	"errors"
	"io"
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
		r := etl.NewReader(bytes.NewReader(data))
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
