package importer_test

import (
	"maps"
	"slices"
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
	// the cases of issues 35 §3 and 36: chains of every tree-shaped
	// format, positions wrapping through relative compression, Xcode 16's
	// figure spaces, node 10.11's extra time delta, a truncated gzip
	chains := deepChains(300)
	for _, name := range slices.Sorted(maps.Keys(chains)) {
		f.Add(chains[name])
	}
	f.Add([]byte("positions: instr\nevents: Ir\nfn=f\n0x10 5\n-0x20 3\n+0xFFFFFFFFFFFFFFFF 1\n"))
	f.Add([]byte("Weight\tSelf Weight\tSymbol Names\n2.45 s  100.0%\t0 s\t   start\n1.45 s  \u200759.1%\t1.45 s\t    work()\n"))
	f.Add([]byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"callFrame":{"functionName":"a"}}],"samples":[2,2],"timeDeltas":[1,1,1],"startTime":0,"endTime":5}`))
	synth := importtest.Synthetic(5, 5, 1)
	f.Add(synth[:len(synth)/2])
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
