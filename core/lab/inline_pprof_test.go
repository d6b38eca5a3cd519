package lab_test

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/sampling"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/kernel/nt"
)

// pprofFlat is pprof's flat profile (the first sample type): each
// sample to the first line of its first location, the innermost
// function, as `go tool pprof -top` charges it.
func pprofFlat(p *profile.Profile, vi int) (map[string]float64, float64) {
	out := map[string]float64{}
	var n float64
	for _, s := range p.Sample {
		out[s.Location[0].Line[0].Function.Name] += float64(s.Value[vi])
		n += float64(s.Value[vi])
	}
	return out, n
}

// The lab's pprof profile of an imported Go profile with inlining names
// the functions the source's does, as `go tool pprof -top` shows them:
// the buckets charge the physical function (a 0.66% function inlined
// into HashLoop has no address, so no bucket, of its own), and the
// samples keep the inlined frames of their drawn stacks as lines of
// their location, so the flat profile of the lab's pprof matches the
// source's, Rare's share included, within sampling error.
func TestPprofOfInlinedImportNamesTheSourcesFunctions(t *testing.T) {
	data, err := os.ReadFile("../workload/importer/testdata/goinline.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	im, err := importer.Import("goinline.pb.gz", data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := labtest.InprocArch(t, 4, 3, "x64")
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	r, err := im.Spec.Resolve(targetOf(l))
	if err != nil {
		t.Fatal(err)
	}
	for _, img := range r.Spec.Images {
		if img.Name == workload.DefaultKernelImage {
			continue
		}
		lo, hi := uint64(math.MaxUint64), uint64(0)
		for _, f := range r.Funcs {
			if f.Image == img.Name && !f.Inline {
				lo, hi = min(lo, f.Addr), max(hi, f.Addr+f.Size)
			}
		}
		globalProfileOf(t, l, lo, hi-lo, 4, nt.ProfileTime)
	}
	l.SetInterval(t, nt.ProfileTime, 1221)
	if _, err := l.Sim.Run(13_000_000, im.Spec); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := output.Write(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range sum.Files {
		if strings.HasPrefix(f, "profile-") {
			files = append(files, filepath.Join(dir, f))
		}
	}
	if len(files) != 1 {
		t.Fatalf("profiles %v, want one (the workload has one image)", files)
	}
	lab := readPprof(t, files[0])
	src, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	got, n := pprofFlat(lab, 0)
	want, total := pprofFlat(src, len(src.SampleType)-1)
	if n < 100_000 {
		t.Fatalf("%v samples, want more than 10^5", n)
	}
	for name := range got {
		if want[name] == 0 {
			t.Errorf("the lab's flat profile names %s, the source's does not", name)
		}
	}
	for name, w := range want {
		share := w / total
		if sd := math.Sqrt(share * (1 - share) / n); math.Abs(got[name]/n-share) > 5*sd {
			t.Errorf("%s: flat %.4f in the lab's pprof, %.4f in the source's (± %.4f)", name, got[name]/n, share, 5*sd)
		}
	}
	test := distance(t, got, n, sharesOf(want, total))
	t.Logf("%v samples: the lab's pprof flat is at total variation %.4f of the source's (%.4f expected), %s", n, test.TV, test.Expected, sampling.FormatP(test.P, test.Method))
	if test.Beyond() {
		t.Errorf("total variation %.4f (%.4f expected), %s: beyond sampling error", test.TV, test.Expected, sampling.FormatP(test.P, test.Method))
	}
	const rare = "github.com/proflab/proflab/core/workload/importer/importtest.Rare"
	for _, loc := range lab.Location {
		for i, ln := range loc.Line {
			if ln.Function.Name == rare && (i == len(loc.Line)-1 || !strings.HasSuffix(loc.Line[len(loc.Line)-1].Function.Name, ".HashLoop")) {
				t.Errorf("location 0x%X holds Rare as line %d of %d: want it inlined into HashLoop, whose address it is", loc.Address, i+1, len(loc.Line))
			}
		}
	}
	if got[rare] == 0 {
		t.Error("Rare has no flat sample in the lab's pprof")
	}
	// and go tool pprof -top says the same names, inline marks included
	if a, b := topNames(t, files[0]), topNames(t, writeSource(t, data)); len(b) < 7 || !slices.Equal(a, b) {
		t.Errorf("go tool pprof -top names\n%s\nof the lab's profile, and\n%s\nof the source's", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

// sharesOf is w over total.
func sharesOf(w map[string]float64, total float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range w {
		out[k] = v / total
	}
	return out
}

func readPprof(t *testing.T, path string) *profile.Profile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeSource writes data to a file for the pprof tool.
func writeSource(t *testing.T, data []byte) string {
	path := filepath.Join(t.TempDir(), "source.pb.gz")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// topNames are the names `go tool pprof -top` lists for path, every
// node kept, sorted: function names with pprof's "(inline)" and
// "(partial-inline)" marks.
func topNames(t *testing.T, path string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	out, err := exec.Command(gobin, "tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0", "-edgefraction=0", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -top %s: %v\n%s", path, err, out)
	}
	var names []string
	table := false
	t.Logf("go tool pprof -top %s:\n%s", filepath.Base(path), out)
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "flat":
			table = true
		case table && len(f) >= 6:
			names = append(names, strings.Join(f[5:], " "))
		}
	}
	slices.Sort(names)
	return names
}
