package importer_test

import (
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// FuzzImport: on any small input, Detect and Import return an error or a
// workload that holds the invariants (and never panic).
func FuzzImport(f *testing.F) {
	for _, name := range []string{"perf_g.txt", "perf_nog.txt", "perf_events.txt", "folded.txt", "goprog.pb.gz",
		"perf/perf3_callgraph.txt", "perf/perf4_system_wide.txt", "perf/gzip_no_event.txt",
		"instruments_time.txt", "instruments_xcode7.txt", "callgrind_spec.txt", "ghc_pP.prof", "ghc7.prof",
		"pmcstat.txt", "dtrace_ustack.txt", "dtrace_keys.txt", "dtrace_kernel.txt"} {
		f.Add(readTestdata(f, name))
	}
	for _, name := range []string{"v8_small.cpuprofile", "v8_old.cpuprofile", "chrome_trace_small.json", "chrome_trace_cpuprofile_event.json",
		"speedscope_small.json", "speedscope_pyspy.json", "gecko_small.json", "gecko_processed.json", "stackprof_small.json", "stackprof_noraw.json",
		"ghc_pj.prof", "chrome_trace_spans.json", "chrome_trace_samples.json", "chrome_trace_empty_profile.json", "gecko_processed_old.json", "callgrind_xdebug.txt", "perf_sideband.txt"} {
		f.Add(readTestdata(f, name))
	}
	f.Add(importtest.LegacyExample())
	f.Add(importtest.Synthetic(5, 5, 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		if _, err := importer.Detect(data); err != nil {
			return
		}
		for _, arch := range []string{"x64", "x86"} {
			im, err := importer.Import("fuzz", data, importer.Options{Arch: arch})
			if err != nil {
				continue
			}
			importtest.CheckInvariants(t, im)
		}
	})
}
