package lab_test

import (
	"encoding/binary"
	"math"
	"os"
	"sort"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// The round trip of a real program's profile: imported, then profiled on
// the lab by the fastest timer over every image it brings, the sampled
// flat profile (bucket counts charged to the function at each bucket's
// start) matches the source's flat profile within sampling error: the
// total-variation distance stays under what sampling noise explains at
// that many samples (the bound of core/output's accuracy: ½ Σ √(t(1−t)/n)
// + √(ln 1000 / 2n), exceeded by chance with probability under 0.1%).
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
		name string
		data []byte
		arch string
	}{
		{"go cpu profile (pprof)", goprof, "x64"},
		{"go cpu profile on x86", goprof, "x86"},
		{"synthetic pprof, 300 functions", importtest.Synthetic(300, 3000, 7), "x64"},
		{"legacy unsymbolized pprof", importtest.LegacyExample(), "x64"},
		{"perf script with call graphs", read("perf_g.txt"), "x64"},
		{"perf script, several events", read("perf_events.txt"), "x64"},
		{"folded stacks", read("folded.txt"), "x64"},
		{"folded stacks on x86", read("folded.txt"), "x86"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			im, err := importer.Import(tc.name, tc.data, importer.Options{Arch: tc.arch})
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, im, tc.arch)
		})
	}
}

func roundTrip(t *testing.T, im *importer.Imported, arch string) {
	l := labtest.InprocArch(t, 4, 3, arch)
	r, err := im.Spec.Resolve(targetOf(l))
	if err != nil {
		t.Fatal(err)
	}
	// a global profile over each image, in 4-byte buckets
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
			if f.Image == img.Name {
				lo, hi = min(lo, f.Addr), max(hi, f.Addr+f.Size)
			}
		}
		if hi > lo {
			profs = append(profs, prof{globalProfile(t, l, lo, hi-lo, 2), lo, hi - lo})
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
	want := im.Flat()
	if n < 10000 {
		t.Fatalf("%v samples: too few to judge", n)
	}
	names := map[string]bool{}
	for k := range want {
		names[k] = true
	}
	for k := range sampled {
		names[k] = true
	}
	var s, w []float64
	for k := range names {
		s, w = append(s, sampled[k]/n), append(w, want[k])
	}
	tv, bound := output.Distance(s, w, n)
	if tv > bound {
		type d struct {
			name string
			s, w float64
		}
		var ds []d
		for k := range names {
			ds = append(ds, d{k, sampled[k] / n, want[k]})
		}
		sort.Slice(ds, func(i, j int) bool { return math.Abs(ds[i].s-ds[i].w) > math.Abs(ds[j].s-ds[j].w) })
		for _, x := range ds[:min(8, len(ds))] {
			t.Logf("%-40s sampled %.4f source %.4f", x.name, x.s, x.w)
		}
		t.Errorf("%d functions, %v samples: total variation %.4f > %.4f, more than sampling error explains", len(want), n, tv, bound)
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

// globalProfile creates and starts a profile of every process over
// [base, base+size) in 2^bucket-byte buckets; it returns its handle.
func globalProfile(t *testing.T, l *labtest.Lab, base, size uint64, bucket uint32) uint64 {
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
		BucketSize: bucket, Buffer: buf, BufferSize: uint32(n * 4), ProfileSource: uint32(nt.ProfileTime), Affinity: 1<<uint(l.M.CPUCount()) - 1})
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
