package jsonprof_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// bigV8 is a .cpuprofile at the scale of a long Node run: 100,000 call
// tree nodes, 1,000,000 samples (about 17 minutes at node's 1 ms), some
// 20 MB of JSON.
func bigV8() []byte { return importtest.V8CPUProfile(100_000, 1_000_000, 3) }

// BenchmarkImportCPUProfile imports the big .cpuprofile (detection
// included).
func BenchmarkImportCPUProfile(b *testing.B) {
	data := bigV8()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := importer.Import("big.cpuprofile", data, importer.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDetectCPUProfile detects the big .cpuprofile's format: one
// scan of its bytes, nothing decoded.
func BenchmarkDetectCPUProfile(b *testing.B) {
	data := bigV8()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if f, err := importer.Detect(data); err != nil || f != importer.CPUProfile {
			b.Fatal(f, err)
		}
	}
}

// bigTrace is a Chrome trace of 300,000 timeline events (about 50 MB)
// around one small CPU profile, as a Performance panel recording is.
func bigTrace() []byte {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	for i := range 300_000 {
		fmt.Fprintf(&b, `{"pid":1,"tid":1,"ts":%d,"ph":"X","cat":"devtools.timeline","name":"RunTask","dur":12,"args":{"data":{"frame":"F%d","url":"https://example.com/page/%d","stackTrace":[{"functionName":"f","lineNumber":%d}]}}},`, i*10, i%7, i%97, i%50)
	}
	b.WriteString(`{"pid":1,"tid":1,"ts":0,"ph":"P","name":"Profile","id":"0x1","args":{"data":{"startTime":0}}},`)
	b.WriteString(`{"pid":1,"tid":2,"ts":1,"ph":"P","name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"callFrame":{"functionName":"f","url":"a.js"},"parent":1}],"samples":[2,2]},"timeDeltas":[100,100]}}}`)
	b.WriteString(`]}`)
	return b.Bytes()
}

// BenchmarkImportChromeTrace imports the big trace: the timeline events
// are skipped without being decoded.
func BenchmarkImportChromeTrace(b *testing.B) {
	data := bigTrace()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := importer.Import("big.json", data, importer.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// chunkTrace is a Chrome trace of a profile in chunks ProfileChunk
// events, on one line (as JSON.stringify and jq -c write it) or one
// event per line.
func chunkTrace(chunks int, oneLine bool) []byte {
	sep := ",\n"
	if oneLine {
		sep = ","
	}
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[{"pid":1,"tid":1,"ts":0,"ph":"P","name":"Profile","id":"0x1","args":{"data":{"startTime":0}}}`)
	b.WriteString(sep + `{"pid":1,"tid":2,"ts":1,"ph":"P","name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"callFrame":{"functionName":"f","url":"a.js"},"parent":1}],"samples":[2]},"timeDeltas":[100]}}}`)
	for i := 1; i < chunks; i++ {
		fmt.Fprintf(&b, sep+`{"pid":1,"tid":2,"ts":%d,"ph":"P","name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":{"samples":[2,2]},"timeDeltas":[100,100]}}}`, i+1)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// BenchmarkImportChromeTraceOneLine imports a trace of 10,000 profile
// chunks written on one line, and the same one event per line: an
// event's line is found only for a message, so both cost the same
// (finding each event's line from the file's start was quadratic in
// the events on one line).
func BenchmarkImportChromeTraceOneLine(b *testing.B) {
	for _, c := range []struct {
		name    string
		oneLine bool
	}{{"one-line", true}, {"lines", false}} {
		b.Run(c.name, func(b *testing.B) {
			data := chunkTrace(10_000, c.oneLine)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := importer.Import("chunks.json", data, importer.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCPUProfileGenerator imports a generated .cpuprofile: every sample
// is kept, and the weights add up to the samples' span (each sample
// weighs the time to the next, the last to endTime).
func TestCPUProfileGenerator(t *testing.T) {
	t.Parallel()
	data := importtest.V8CPUProfile(3000, 20000, 5)
	im, err := importer.Import("gen.cpuprofile", data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	if im.Samples != 20000 {
		t.Errorf("%d samples, want 20000", im.Samples)
	}
	var total float64
	for _, w := range importtest.LeafWeights(im.Spec) {
		total += w
	}
	var p struct {
		StartTime, EndTime float64
		TimeDeltas         []float64
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	if want := p.EndTime - (p.StartTime + p.TimeDeltas[0]); !importtest.Near(total, want) {
		t.Errorf("weights add up to %v µs, want endTime − the first sample's time = %v", total, want)
	}
	if n := len(im.Spec.Images); n != 51 {
		t.Errorf("%d images, want the 50 scripts and (native)", n)
	}
}
