package lab_test

import (
	"math"
	"os"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/sampling"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/kernel/nt"
)

// The round trip of real perf recordings that used to be refused or
// skewed: `perf record -g` of Debian's gzip and python3 (frame-pointer
// unwinds into garbage addresses), --call-graph dwarf (inlined frames),
// task-clock. Imported, then profiled by the fastest timer, their flat
// profiles are within sampling error of the source's as the profile's
// buckets can see it (roundTripBuckets).
func TestRoundTripRealPerf(t *testing.T) {
	for _, tc := range []struct{ name, file, arch string }{
		{"perf -g of gzip, garbage unwinds", "gzip_fp.txt.gz", "x64"},
		{"perf -g of gzip on x86", "gzip_fp.txt.gz", "x86"},
		{"perf -g of python3, two threads", "python_fp.txt.gz", "x64"},
		{"perf --call-graph dwarf of gzip", "gzip_dwarf.txt.gz", "x64"},
		{"perf -e task-clock of gzip", "gzip_task_clock.txt.gz", "x64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile("../workload/importer/testdata/perf/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			im, err := importer.Import(tc.file, data, importer.Options{Arch: tc.arch})
			if err != nil {
				t.Fatal(err)
			}
			roundTripBuckets(t, im, tc.arch)
		})
	}
}

// roundTripBuckets is roundTrip for profiles of stripped binaries: perf
// names every unsymbolized address a function of its own (gzip+0x883),
// a few bytes from its neighbours, where a 4-byte bucket holds two of
// them and is charged, as a profile's bucket is, to the function at its
// start. The source's expected flat profile is therefore charged the same
// way: each function's share spread over its hotspots' addresses, each
// address charged to the function at the start of its bucket (functions
// without hotspots keep their share). The import is right if the lab
// samples that within sampling error; any address moved or weight lost
// shows.
func roundTripBuckets(t *testing.T, im *importer.Imported, arch string) {
	l := labtest.InprocArch(t, 4, 3, arch)
	r, err := im.Spec.Resolve(targetOf(l))
	if err != nil {
		t.Fatal(err)
	}
	type prof struct {
		h          uint64
		base, size uint64
	}
	var profs []prof
	baseOf := map[string]uint64{}
	for _, img := range r.Spec.Images {
		if img.Name == workload.DefaultKernelImage && len(img.Functions) == 3 {
			continue // the built-in kernel image: idle time is no source's
		}
		lo, hi := uint64(math.MaxUint64), uint64(0)
		for _, f := range r.Funcs {
			if f.Image == img.Name && !f.Inline { // an inline function owns no address
				lo, hi = min(lo, f.Addr), max(hi, f.Addr+f.Size)
			}
		}
		if hi > lo {
			profs = append(profs, prof{globalProfileOf(t, l, lo, hi-lo, 2, nt.ProfileTime), lo, hi - lo})
			baseOf[img.Name] = lo
		}
	}
	source := im.CodeFlat() // buckets charge the physical function
	want := map[string]float64{}
	for i := range r.Funcs {
		f := &r.Funcs[i]
		share := source[r.Ref(i)]
		base, ok := baseOf[f.Image]
		if share == 0 || !ok {
			continue
		}
		if len(f.Hotspots) == 0 {
			want[r.Ref(i)] += share
			continue
		}
		for _, h := range f.Hotspots {
			a := f.Addr + h.Offset
			b := base + (a-base)&^3
			if g := funcIn(r, b, 4); g >= 0 {
				want[r.Ref(g)] += share * h.Weight
			}
		}
	}
	l.SetInterval(t, nt.ProfileTime, 1221)
	if _, err := l.Sim.Run(3_000_000, im.Spec); err != nil {
		t.Fatal(err)
	}
	sampled := map[string]float64{}
	var n float64
	for _, p := range profs {
		for j, c := range l.Counters(t, p.h) {
			if c == 0 {
				continue
			}
			f := funcIn(r, p.base+uint64(j)*4, 4)
			if f < 0 {
				t.Errorf("%d samples at 0x%X, in no function", c, p.base+uint64(j)*4)
				continue
			}
			sampled[r.Ref(f)] += float64(c)
			n += float64(c)
		}
	}
	if n < 10000 {
		t.Fatalf("%v samples: too few to judge", n)
	}
	test := distance(t, sampled, n, want)
	if test.Beyond() {
		logWorst(t, sampled, n, want)
		t.Errorf("%d functions, %v samples: total variation %.4f (%.4f expected), %s: more than sampling error explains", len(want), n, test.TV, test.Expected, sampling.FormatP(test.P, test.Method))
	}
}
