package lab_test

import (
	"os"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
)

// The round trip of the text formats of other systems' profilers
// (Instruments' deep copy, callgrind, GHC's .prof, pmcstat -G, DTrace):
// imported, then profiled on the lab by the fastest timer, the sampled
// flat profile matches the source's within sampling error (roundTrip's
// calibrated test).
func TestRoundTripTextFormats(t *testing.T) {
	for _, tc := range []struct{ name, file, arch string }{
		{"instruments deep copy, two threads", "instruments_time.txt", "x64"},
		{"instruments deep copy, Xcode 7", "instruments_xcode7.txt", "x64"},
		{"callgrind of a C program", "callgrind_prog.out.gz", "x64"},
		{"callgrind of gzip on x86", "callgrind_gzip.out.gz", "x86"},
		{"callgrind, two threads", "callgrind_threads.out.gz", "x64"},
		{"ghc +RTS -P", "ghc_pP.prof", "x64"},
		{"ghc 7 +RTS -p", "ghc7.prof", "x64"},
		{"ghc +RTS -pj (JSON)", "ghc_pj.prof", "x64"},
		{"pmcstat -G with CPIs", "pmcstat.txt", "x64"},
		{"dtrace ustack()", "dtrace_ustack.txt", "x64"},
		{"dtrace keyed by process", "dtrace_keys.txt", "x64"},
		{"dtrace stack() and ustack()", "dtrace_kernel.txt", "x64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile("../workload/importer/testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			im, err := importer.Import(tc.file, data, importer.Options{Arch: tc.arch})
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, im, tc.arch, timerTrip)
		})
	}
}
