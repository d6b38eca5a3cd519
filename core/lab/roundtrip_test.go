package lab_test

import (
	"encoding/binary"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/sampling"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// The round trip of a real program's profile: imported, then profiled on
// the lab by the fastest timer over every image it brings, the sampled
// flat profile (bucket counts charged to the function at each bucket's
// start) matches the source's flat profile by address (CodeFlat: a
// sample charged to the physical function whose code ran, as a PE
// symbol lookup charges it) within sampling error: the calibrated test
// of core/sampling (the verdict of core/output's accuracy) finds no
// difference at p < 0.001.
func TestRoundTripWithinSamplingError(t *testing.T) {
	goprof, err := os.ReadFile("../workload/importer/testdata/goprog.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile("../workload/importer/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name    string
		data    []byte
		arch    string
		process string
	}{
		{"go cpu profile (pprof)", goprof, "x64", ""},
		{"go cpu profile on x86", goprof, "x86", ""},
		{"go cpu profile with inlining", read("goinline.pb.gz"), "x64", ""},
		{"synthetic pprof, 300 functions", importtest.Synthetic(300, 3000, 7), "x64", ""},
		{"legacy unsymbolized pprof", importtest.LegacyExample(), "x64", ""},
		{"perf script with call graphs", read("perf_g.txt"), "x64", ""},
		{"perf script, several events", read("perf_events.txt"), "x64", ""},
		// (its python3 process runs a stripped libz.so: unsymbolized
		// addresses 4 bytes apart, which no bucket of NT's smallest, 4
		// bytes, tells apart)
		{"perf script with inlined frames (dwarf)", read("perf_inline.txt"), "x64", "t"},
		{"folded stacks", read("folded.txt"), "x64", ""},
		{"folded stacks on x86", read("folded.txt"), "x86", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			im, err := importer.Import(tc.name, tc.data, importer.Options{Arch: tc.arch, Process: tc.process})
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, im, tc.arch, timerTrip)
		})
	}
}

// The round trip of a Go profile with inlining by every kind of source,
// at more than 10^5 samples in 16-byte buckets: the timer, a counter
// with skid and PEBS all match the source's flat profile by address
// within sampling error. (Before inlined functions owned no address,
// each gave its own byte range inside its callers, and 16-byte buckets
// that straddled them kept a distance of 0.04 whatever the samples.)
func TestRoundTripInlinedBySource(t *testing.T) {
	data, err := os.ReadFile("../workload/importer/testdata/goinline.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	im, err := importer.Import("goinline.pb.gz", data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		trip trip
	}{
		{"timer", trip{src: nt.ProfileTime, interval: 1221, bucket: 4, durationUS: 13_000_000}},
		{"counter with skid", trip{src: nt.ProfileTotalIssues, interval: 300007, bucket: 4, durationUS: 13_000_000}},
		{"PEBS", trip{src: nt.ProfileTotalIssues, interval: 300007, bucket: 4, durationUS: 13_000_000, hals: []string{"apic", "pebs", "pmu"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if n := roundTrip(t, im, "x64", tc.trip); n < 100_000 {
				t.Errorf("%v samples, want more than 10^5", n)
			}
		})
	}
}

// trip is how a round trip profiles: a source at an interval over every
// image in 2^bucket-byte buckets, for durationUS, on hals (default apic
// and pmu; a list with pebs gets control areas).
type trip struct {
	src        nt.Source
	interval   uint32
	bucket     uint32
	durationUS uint64
	hals       []string
}

// timerTrip is the fastest timer for 3 s in 4-byte buckets.
var timerTrip = trip{src: nt.ProfileTime, interval: 1221, bucket: 2, durationUS: 3_000_000}

// roundTrip profiles im's workload as tr says and checks the sampled
// flat profile against the source's by address; it returns the samples.
func roundTrip(t *testing.T, im *importer.Imported, arch string, tr trip) float64 {
	l := labtest.InprocArch(t, 4, 3, arch, tr.hals...)
	if slices.Contains(tr.hals, "pebs") {
		controlAreas(t, l.M)
	}
	r, err := im.Spec.Resolve(targetOf(l))
	if err != nil {
		t.Fatal(err)
	}
	// a global profile over each image
	type prof struct {
		h          uint64
		base, size uint64
	}
	var profs []prof
	for _, img := range r.Spec.Images {
		if img.Name == workload.DefaultKernelImage && len(img.Functions) == 3 {
			continue // the built-in kernel image: idle time is no source's
		}
		lo, hi := uint64(math.MaxUint64), uint64(0)
		for _, f := range r.Funcs {
			if f.Image == img.Name && !f.Inline {
				lo, hi = min(lo, f.Addr), max(hi, f.Addr+f.Size)
			}
		}
		if hi > lo {
			profs = append(profs, prof{globalProfileOf(t, l, lo, hi-lo, tr.bucket, tr.src), lo, hi - lo})
		}
	}
	l.SetInterval(t, tr.src, tr.interval)
	if _, err := l.Sim.Run(tr.durationUS, im.Spec); err != nil {
		t.Fatal(err)
	}
	sampled := map[string]float64{}
	var n float64
	width := uint64(1) << tr.bucket
	for _, p := range profs {
		for j, c := range l.Counters(t, p.h) {
			if c == 0 {
				continue
			}
			f := funcIn(r, p.base+uint64(j)*width, width)
			if f < 0 {
				t.Errorf("%d samples at 0x%X, in no function", c, p.base+uint64(j)*width)
				continue
			}
			sampled[r.Ref(f)] += float64(c)
			n += float64(c)
		}
	}
	want := im.CodeFlat()
	if n < 10000 {
		t.Fatalf("%v samples: too few to judge", n)
	}
	test := distance(t, sampled, n, want)
	t.Logf("%v samples: total variation %.4f (%.4f expected), %s", n, test.TV, test.Expected, sampling.FormatP(test.P, test.Method))
	if test.Beyond() {
		logWorst(t, sampled, n, want)
		t.Errorf("%d functions, %v samples: total variation %.4f (%.4f expected), %s: more than sampling error explains", len(want), n, test.TV, test.Expected, sampling.FormatP(test.P, test.Method))
	}
	return n
}

// distance tests n samples by function against the shares want:
// core/sampling's calibrated test, the verdict of accuracy.csv.
func distance(t *testing.T, sampled map[string]float64, n float64, want map[string]float64) sampling.Test {
	t.Helper()
	names := map[string]bool{}
	for k := range want {
		names[k] = true
	}
	for k := range sampled {
		names[k] = true
	}
	var counts []uint64
	var w []float64
	for _, k := range slices.Sorted(maps.Keys(names)) {
		counts, w = append(counts, uint64(sampled[k])), append(w, want[k])
	}
	test, err := sampling.GoodnessOfFit(counts, w)
	if err != nil {
		t.Fatal(err)
	}
	return test
}

// logWorst logs the functions farthest from their share.
func logWorst(t *testing.T, sampled map[string]float64, n float64, want map[string]float64) {
	type d struct {
		name string
		s, w float64
	}
	var ds []d
	for k, w := range want {
		ds = append(ds, d{k, sampled[k] / n, w})
	}
	for k, v := range sampled {
		if _, ok := want[k]; !ok {
			ds = append(ds, d{k, v / n, 0})
		}
	}
	sort.Slice(ds, func(i, j int) bool { return math.Abs(ds[i].s-ds[i].w) > math.Abs(ds[j].s-ds[j].w) })
	for _, x := range ds[:min(8, len(ds))] {
		t.Logf("%-40s sampled %.4f source %.4f", x.name, x.s, x.w)
	}
}

// funcIn is the function holding addr, else the first one starting in
// [addr, addr+size) (as the outputs charge a bucket), else -1.
func funcIn(r *workload.Resolved, addr, size uint64) int {
	if f := r.FuncAt(addr); f >= 0 {
		return f
	}
	for a := addr + 1; a < addr+size; a++ {
		if f := r.FuncAt(a); f >= 0 && r.Funcs[f].Addr == a {
			return f
		}
	}
	return -1
}

func targetOf(l *labtest.Lab) workload.Target {
	a := l.M.Config().Arch
	return workload.Target{X86: a == kernel.X86, UserProbeAddress: a.MmUserProbeAddress()}
}

// globalProfileOf creates and starts a profile of source src of every
// process over [base, base+size) in 2^bucket-byte buckets; it returns
// its handle.
func globalProfileOf(t *testing.T, l *labtest.Lab, base, size uint64, bucket uint32, src nt.Source) uint64 {
	t.Helper()
	th := l.P.MainThread()
	hp, err := l.P.Alloc(8, kernel.ProtReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	n := (size >> bucket) + 1
	buf, err := l.P.Alloc(n*4, kernel.ProtReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	st, err := th.NtCreateProfile(kernel.CreateArgs{ProfileHandle: hp, ProfileBase: base, ProfileSize: size,
		BucketSize: bucket, Buffer: buf, BufferSize: uint32(n * 4), ProfileSource: uint32(src), Affinity: 1<<uint(l.M.CPUCount()) - 1})
	if err != nil || st != kernel.StatusSuccess {
		t.Fatalf("NtCreateProfile(0x%X+0x%X): %v %v", base, size, st, err)
	}
	var hb [8]byte
	_ = l.P.Read(hp, hb[:])
	h := binary.LittleEndian.Uint64(hb[:])
	if st, err := th.NtStartProfile(h); err != nil || st != kernel.StatusSuccess {
		t.Fatalf("NtStartProfile: %v %v", st, err)
	}
	return h
}
