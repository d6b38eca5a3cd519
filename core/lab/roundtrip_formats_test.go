package lab_test

import (
	"os"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
)

// The round trip of the JSON formats' profiles (V8's .cpuprofile and
// trace events, speedscope, Firefox's Gecko and processed formats,
// stackprof): imported, then profiled on the lab by the fastest timer,
// the sampled flat profile matches the source's within sampling error
// (see TestRoundTripWithinSamplingError). Their functions have no
// addresses but the Firefox profiles' native frames: the synthetic
// layout gives each its own range.
//
// The real Firefox profile (testdata/firefox_gecko.json.gz) is not here:
// its unsymbolicated native frames are one function per sampled address,
// as the Firefox Profiler has them, often 1 to 3 bytes apart, which no
// NT profile (4-byte buckets at the finest) can tell apart; the
// hand-made Gecko profiles round-trip the format's addresses.
func TestRoundTripJSONFormats(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile("../workload/importer/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name, file string
		opt        importer.Options
	}{
		{"node --cpu-prof", "node_cpu.cpuprofile", importer.Options{}},
		{"cpuprofile on x86", "v8_small.cpuprofile", importer.Options{Arch: "x86"}},
		{"chrome trace", "chrome_trace_small.json", importer.Options{}},
		{"node inspector trace", "node_trace.json", importer.Options{}},
		{"trace of duration events", "chrome_trace_spans.json", importer.Options{}},
		{"trace of Hermes' samples", "chrome_trace_samples.json", importer.Options{}},
		{"speedscope, sampled and evented", "speedscope_small.json", importer.Options{}},
		{"speedscope of py-spy, two processes", "speedscope_pyspy.json", importer.Options{}},
		{"gecko", "gecko_small.json", importer.Options{}},
		{"firefox processed, shared tables", "gecko_processed_v63.json", importer.Options{}},
		{"firefox processed", "gecko_processed.json", importer.Options{}},
		{"stackprof, real cpu", "stackprof_cpu.json", importer.Options{}},
		{"stackprof", "stackprof_small.json", importer.Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			im, err := importer.Import(tc.file, read(tc.file), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			arch := tc.opt.Arch
			if arch == "" {
				arch = "x64"
			}
			roundTrip(t, im, arch, timerTrip)
		})
	}
}
