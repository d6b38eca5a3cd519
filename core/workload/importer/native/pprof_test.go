package native_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// TestGenerateGoProfile rewrites testdata/goprog.pb.gz with -update: a
// real CPU profile of importtest's busy functions.
func TestGenerateGoProfile(t *testing.T) {
	if !*update {
		t.Skip("run with -update to profile importtest's Go program again")
	}
	data, err := importtest.GoCPUProfile(3 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(testdata, "goprog.pb.gz"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGenerateGoInlinedProfile rewrites testdata/goinline.pb.gz with
// -update: a real CPU profile of importtest's program whose hot
// functions the compiler inlines.
func TestGenerateGoInlinedProfile(t *testing.T) {
	if !*update {
		t.Skip("run with -update to profile importtest's inlined Go program again")
	}
	data, err := importtest.GoInlinedCPUProfile(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(testdata, "goinline.pb.gz"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sourceStacks is a pprof profile's stacks as the importer should give
// them, computed here from the profile itself: frames leaf first, a
// location's lines innermost first, an unsymbolized location named
// file+0xOFFSET; weights of the default (last) sample type.
func sourceStacks(p *profile.Profile) (stacks, leaves map[string]float64) {
	stacks, leaves = map[string]float64{}, map[string]float64{}
	vi := len(p.SampleType) - 1
	for _, s := range p.Sample {
		var names []string
		for _, l := range s.Location {
			if len(l.Line) == 0 {
				names = append(names, fmt.Sprintf("%s+0x%x", filepath.Base(l.Mapping.File), l.Address-l.Mapping.Start))
			}
			for _, ln := range l.Line {
				names = append(names, ln.Function.Name)
			}
		}
		if len(names) == 0 || s.Value[vi] == 0 {
			continue
		}
		stacks[strings.Join(names, " <- ")] += float64(s.Value[vi])
		leaves[names[0]] += float64(s.Value[vi])
	}
	return stacks, leaves
}

func parseProfile(t *testing.T, data []byte) *profile.Profile {
	t.Helper()
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGoProfile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(testdata, "goprog.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := importer.Detect(data); err != nil || f != importer.Pprof {
		t.Fatalf("Detect = %q, %v; want pprof", f, err)
	}
	im := importFile(t, "goprog.pb.gz", importer.Options{})
	if len(im.Warnings) > 0 {
		t.Errorf("a Go CPU profile warned: %q", im.Warnings)
	}
	p := parseProfile(t, data)
	stacks, leaves := sourceStacks(p)
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), stacks)
	importtest.EqualWeights(t, "leaf", importtest.LeafWeights(im.Spec), leaves)
	if im.SampleType != "cpu/nanoseconds" || im.Period != float64(p.Period) || im.PeriodUnit != "nanoseconds" {
		t.Errorf("sample type %q, period %v %s: want cpu/nanoseconds, %d nanoseconds", im.SampleType, im.Period, im.PeriodUnit, p.Period)
	}
	if want := filepath.Base(p.Mapping[0].File); im.Spec.Processes[0].Name != want {
		t.Errorf("process %q, want the main mapping's %q", im.Spec.Processes[0].Name, want)
	}
	for _, fn := range []string{"SpinLight", "SpinMedium", "SpinHeavy"} {
		name := "github.com/proflab/proflab/core/workload/importer/importtest." + fn
		if leaves[name] == 0 {
			t.Errorf("the profile has no sample in %s: regenerate it with -update", name)
		}
	}
	checkAddressesKept(t, im, p, 0.99)
	for _, target := range []struct {
		name string
		tg   any
	}{{"x64", x64}} {
		if _, err := im.Spec.Resolve(x64); err != nil {
			t.Errorf("Resolve(%s): %v", target.name, err)
		}
	}
}

// checkAddressesKept checks that at least share of the profile's leaf
// weight is at a hotspot of its physical function (the leaf location's
// last line: the inlined functions before it own no address) at the same
// address (the images keep their mappings' addresses on x64; functions
// whose spans overlap others' move), and returns the share.
func checkAddressesKept(t *testing.T, im *importer.Imported, p *profile.Profile, share float64) float64 {
	t.Helper()
	at := map[string]map[uint64]bool{} // function name → absolute hotspot addresses
	for _, img := range im.Spec.Images {
		for _, f := range img.Functions {
			m := map[uint64]bool{}
			for _, h := range f.Hotspots {
				m[uint64(img.Base)+uint64(f.Offset)+h.Offset] = true
			}
			at[f.Name] = m
		}
	}
	var kept, total float64
	for _, s := range p.Sample {
		l := s.Location[0]
		if len(l.Line) == 0 {
			continue
		}
		v := float64(s.Value[len(s.Value)-1])
		total += v
		if at[l.Line[len(l.Line)-1].Function.Name][l.Address] {
			kept += v
		}
	}
	if total == 0 || kept < share*total {
		t.Errorf("%.3g of %.3g of the leaf weight is at its source address, want at least %v", kept, total, share)
	}
	return kept / total
}

func TestSyntheticProfile(t *testing.T) {
	t.Parallel()
	data := importtest.Synthetic(400, 3000, 7)
	im, err := importer.Import("synth.pb.gz", data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	p := parseProfile(t, data)
	stacks, leaves := sourceStacks(p)
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), stacks)
	importtest.EqualWeights(t, "leaf", importtest.LeafWeights(im.Spec), leaves)
	kinds := map[string]bool{}
	for _, img := range im.Spec.Images {
		kinds[fmt.Sprintf("%s kernel=%v base=%s", img.Name, img.Kernel, img.Base)] = true
	}
	for _, want := range []string{
		fmt.Sprintf("synth kernel=false base=0x%X", importtest.SyntheticMain),
		fmt.Sprintf("libc.so.6 kernel=false base=0x%X", importtest.SyntheticLib),
		fmt.Sprintf("[kernel.kallsyms] kernel=true base=0x%X", uint64(importtest.SyntheticKernel)),
	} {
		if !kinds[want] {
			t.Errorf("no image %s; images: %v", want, kinds)
		}
	}
	t.Logf("%.1f%% of the leaf weight is at its source address", 100*checkAddressesKept(t, im, p, 0.8))
	r, err := im.Spec.Resolve(x64)
	if err != nil {
		t.Fatalf("Resolve(x64): %v", err)
	}
	checkHotspotsResolve(t, im, r)
	im86, err := importer.Import("synth.pb.gz", data, importer.Options{Arch: "x86"})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im86)
	r86, err := im86.Spec.Resolve(x86)
	if err != nil {
		t.Fatalf("Resolve(x86): %v", err)
	}
	checkHotspotsResolve(t, im86, r86)
}

// checkHotspotsResolve checks that every hotspot's address resolves to
// its own function: the address a sample lands on is charged to the
// function the source charged.
func checkHotspotsResolve(t *testing.T, im *importer.Imported, r *workload.Resolved) {
	t.Helper()
	n := 0
	for _, img := range im.Spec.Images {
		for _, f := range img.Functions {
			for _, h := range f.Hotspots {
				a := uint64(img.Base) + uint64(f.Offset) + h.Offset
				if i := r.FuncAt(a); i < 0 || r.Funcs[i].Name != f.Name {
					t.Errorf("0x%X, a hotspot of %s, resolves to function %d", a, f.Name, i)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Error("no hotspot to check")
	}
}

func TestLegacyUnsymbolized(t *testing.T) {
	t.Parallel()
	data := importtest.LegacyExample()
	if f, err := importer.Detect(data); err != nil || f != importer.Pprof {
		t.Fatalf("Detect = %q, %v; want pprof", f, err)
	}
	im, err := importer.Import("legacy.prof", data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	// Leaves are not adjusted; callers' return addresses are, by -1.
	want := map[string]float64{
		"legacyprog+0x1000": 60 * 100e3, "legacyprog+0x1008": 30 * 100e3,
		"legacyprog+0x2010": 25 * 100e3, "libc-2.19.so+0x12340": 15 * 100e3,
	}
	importtest.EqualWeights(t, "leaf", importtest.LeafWeights(im.Spec), want)
	img, f := importtest.Function(t, im.Spec, "legacyprog", "legacyprog+0x1000")
	if img.Base != 0x400000 || f.Offset != 0x1000 || len(f.Hotspots) != 1 || f.Hotspots[0].Offset != 0 {
		t.Errorf("legacyprog at %s, function at +%s with hotspots %v: want the mapping's 0x400000 and +0x1000", img.Base, f.Offset, f.Hotspots)
	}
	if _, f := importtest.Function(t, im.Spec, "legacyprog", "legacyprog+0x1000"); f.Size != 8 {
		t.Errorf("legacyprog+0x1000: size %d, want 8 (padding cut at the next address, 0x1008)", f.Size)
	}
	if _, f := importtest.Function(t, im.Spec, "legacyprog", "legacyprog+0x3004"); f.Weight != 0 || f.Size != profmodel.Padding {
		t.Errorf("caller legacyprog+0x3004 (a return address - 1): weight %v size %d, want 0 and %d", f.Weight, f.Size, profmodel.Padding)
	}
	if im.Spec.Processes[0].Name != "legacyprog" || im.Samples != 130 || im.Period != 100e3 {
		t.Errorf("process %q, %d samples, period %v: want legacyprog, 130, 100000", im.Spec.Processes[0].Name, im.Samples, im.Period)
	}
	if _, err := im.Spec.Resolve(x64); err != nil {
		t.Errorf("Resolve(x64): %v", err)
	}
	im86, err := importer.Import("legacy.prof", data, importer.Options{Arch: "x86"})
	if err != nil {
		t.Fatal(err)
	}
	r86, err := im86.Spec.Resolve(x86)
	if err != nil {
		t.Fatalf("Resolve(x86): %v", err)
	}
	checkHotspotsResolve(t, im86, r86)
}

// TestLegacyText imports pprof's legacy text forms (a heap profile with
// its mappings, a contention profile without any).
func TestLegacyText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, text, sampleType, note string }{
		{"heap", "heap profile:   2:   2048 [   3:   4096] @ heapprofile\n   1:   1024 [   2:   2048] @ 0x401000 0x402000\n   1:   1024 [   1:   2048] @ 0x401100 0x402000\n\nMAPPED_LIBRARIES:\n00400000-00452000 r-xp 00000000 08:01 131090 /usr/bin/heapy\n",
			"inuse_space/bytes", "labels (bytes)"},
		{"contention", "--- contention:\ncycles/second=3000000000\nsampling period=1\n100 2 @ 0x401000 0x402000\n", "delay/nanoseconds", "more than any code"},
	} {
		if f, err := importer.Detect([]byte(c.text)); f != importer.Pprof || err != nil {
			t.Errorf("%s: Detect = %q, %v; want pprof", c.name, f, err)
		}
		im, err := importer.Import(c.name, []byte(c.text), importer.Options{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		importtest.CheckInvariants(t, im)
		if im.SampleType != c.sampleType || !strings.Contains(strings.Join(im.Notes, "\n"), c.note) {
			t.Errorf("%s: sample type %q, notes %q; want %q and a note on %q", c.name, im.SampleType, im.Notes, c.sampleType, c.note)
		}
		// neither measures where the program ran: imported, with a warning
		if len(im.Warnings) != 1 || !strings.Contains(im.Warnings[0], "not a CPU profile") {
			t.Errorf("%s: warnings %q, want one saying it is not a CPU profile", c.name, im.Warnings)
		}
	}
}
