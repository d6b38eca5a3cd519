package native_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// inlinedStacks is a pprof profile's stacks with their inlined frames,
// as the importer should give them: frames leaf first, a location's lines
// innermost first, each but its last inlined into the next ("frames |
// positions"); and the flat weight of each physical function, the
// last line of the leaf location (what an address lookup charges).
func inlinedStacks(p *profile.Profile) (stacks, code map[string]float64) {
	stacks, code = map[string]float64{}, map[string]float64{}
	vi := len(p.SampleType) - 1
	for _, s := range p.Sample {
		var names []string
		var inlined []int
		for _, l := range s.Location {
			for i, ln := range l.Line {
				names = append(names, ln.Function.Name)
				if i < len(l.Line)-1 {
					inlined = append(inlined, len(names))
				}
			}
		}
		if s.Value[vi] == 0 {
			continue
		}
		stacks[fmt.Sprintf("%s | %v", strings.Join(names, " <- "), inlined)] += float64(s.Value[vi])
		leaf := s.Location[0].Line
		code[leaf[len(leaf)-1].Function.Name] += float64(s.Value[vi])
	}
	return stacks, code
}

// specStacks is the workload's stacks as inlinedStacks keys them.
func specStacks(s *workload.Spec) map[string]float64 {
	out := map[string]float64{}
	for _, p := range s.Processes {
		for _, th := range p.Threads {
			for _, st := range th.Stacks {
				out[fmt.Sprintf("%s | %v", strings.Join(st.Frames, " <- "), st.Inlined)] += st.Weight
			}
		}
	}
	return out
}

// A Go CPU profile of inlined code (testdata/goinline.pb.gz, made by
// importtest.GoInlinedCPUProfile): an address belongs to its location's
// physical function, the last line; the inlined functions stay frames of
// the stacks, marked inlined, and those only ever inlined own no
// address; functions start on 16-byte boundaries, as linked.
func TestGoInlinedProfile(t *testing.T) {
	t.Parallel()
	im := importFile(t, "goinline.pb.gz", importer.Options{})
	p := parseProfile(t, readTestdata(t, "goinline.pb.gz"))
	stacks, code := inlinedStacks(p)
	importtest.EqualWeights(t, "stack", specStacks(im.Spec), stacks)
	_, leaves := sourceStacks(p)
	importtest.EqualWeights(t, "leaf", importtest.LeafWeights(im.Spec), leaves)
	var total float64
	for _, w := range code {
		total += w
	}
	codeFlat := im.CodeFlat()
	for name, w := range code {
		if math.Abs(codeFlat[name]-w/total) > 1e-12 {
			t.Errorf("%s: code share %v, the source's %v", name, codeFlat[name], w/total)
		}
	}
	const pkg = "github.com/proflab/proflab/core/workload/importer/importtest."
	fns := map[string]workload.Function{}
	for _, img := range im.Spec.Images {
		for _, f := range img.Functions {
			fns[f.Name] = f
			if !f.Inline && (uint64(img.Base)+uint64(f.Offset))%profmodel.FunctionAlign != 0 {
				t.Errorf("%s starts at 0x%X, not on %d bytes", f.Name, uint64(img.Base)+uint64(f.Offset), profmodel.FunctionAlign)
			}
		}
	}
	for _, name := range []string{"Mix", "Step", "Rare"} {
		if f, ok := fns[pkg+name]; !ok || !f.Inline {
			t.Errorf("%s: %+v, want an inline function (the profile has it only inlined)", name, f)
		}
	}
	for _, name := range []string{"Scale", "HashLoop", "SumLoop", "ViaValue"} {
		if f, ok := fns[pkg+name]; !ok || f.Inline || f.Size == 0 || len(f.Hotspots) == 0 {
			t.Errorf("%s: %+v, want a function with code at its sampled addresses", name, f)
		}
	}
	if leaves[pkg+"Rare"] == 0 || leaves[pkg+"Scale"] == 0 {
		t.Fatal("the profile has no sample in Rare or Scale: regenerate it with -update")
	}
	checkAddressesKept(t, im, p, 0.99)
	r, err := im.Spec.Resolve(x64)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	checkHotspotsResolve(t, im, r)
}

// perf prints each address of a callchain as the functions inlined there,
// "(inlined)", then the physical function with its dso, all at one ip
// (testdata/perf_inline.txt: perf 6.1's `perf script` of `perf record
// --call-graph dwarf` of a C program built with -O2 -g, and of python3).
func TestPerfInlinedFrames(t *testing.T) {
	t.Parallel()
	im := importFile(t, "perf_inline.txt", importer.Options{})
	for _, name := range []string{"mix", "step"} {
		if _, f := importtest.Function(t, im.Spec, "t", name); !f.Inline {
			t.Errorf("%s: %+v, want inline (perf printed it only \"(inlined)\")", name, f)
		}
	}
	_, work := importtest.Function(t, im.Spec, "t", "work")
	if work.Inline || len(work.Hotspots) == 0 || work.Offset%profmodel.FunctionAlign != 0 {
		t.Errorf("work: %+v, want code at its sampled addresses from a 16-byte start", work)
	}
	// mix and step's ip 0x11c5 is a hotspot of work (the image's origin
	// is the page below its lowest address, 0x1000)
	found := false
	for _, h := range work.Hotspots {
		found = found || uint64(work.Offset)+h.Offset == 0x1C5
	}
	if !found {
		t.Errorf("work has no hotspot at +0x1C5, where mix and step ran inlined: %v", work.Hotspots)
	}
	// __libc_start_main_impl is printed "(inlined)" with nothing after it
	// at its ip: it is the physical function there, in the image of the
	// nearest frame (__libc_start_call_main's libc.so.6)
	if _, f := importtest.Function(t, im.Spec, "libc.so.6", "__libc_start_main_impl"); f.Inline {
		t.Errorf("__libc_start_main_impl is inline, want the physical function at its ip")
	}
	want := "mix <- step <- work <- main <- libc.so.6!__libc_start_call_main <- __libc_start_main_impl <- _start | [1 2]" // (two processes map a libc.so.6)
	if specStacks(im.Spec)[want] == 0 {
		t.Errorf("no stack %q among %v", want, slices.Sorted(func(yield func(string) bool) {
			for k := range specStacks(im.Spec) {
				if !yield(k) {
					return
				}
			}
		}))
	}
	if !hasNote(im, "callchain entries were printed \"(inlined)\" down to their physical function") {
		t.Errorf("no note counts the entries printed (inlined) to their end: %q", im.Notes)
	}
}

// A frame perf --call-graph dwarf prints "(inlined)" with no dso and
// nothing after it at its ip (libc's __memcpy_avx512_unaligned_erms)
// is in the image whose other frames print its symbol, else [unknown]:
// it was put in the image of the sample's nearest frame however far,
// the program's, which it stretched to 1.4 MB (issue 35 §3).
func TestPerfInlinedWithoutDSO(t *testing.T) {
	t.Parallel()
	text := `prog  100/100  [000]  1.000000:  1000 cycles: 
	7f0000351000 __memcpy_avx512_unaligned_erms+0x0 (inlined)
	401200 main+0x20 (/bin/prog)

prog  100/100  [000]  1.000100:  1000 cycles: 
	7f0000351040 __memcpy_avx512_unaligned_erms+0x40 (/lib/libc.so.6)
	401200 main+0x20 (/bin/prog)

prog  100/100  [000]  1.000200:  1000 cycles: 
	560000000000 mystery+0x0 (inlined)
	401200 main+0x20 (/bin/prog)
`
	im, err := importer.Import("inl.txt", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	for _, c := range []struct{ img, fn string }{{"libc.so.6", "__memcpy_avx512_unaligned_erms"}, {"[unknown]", "mystery"}, {"prog", "main"}} {
		if _, f := importtest.Function(t, im.Spec, c.img, c.fn); f.Inline {
			t.Errorf("%s!%s is inline, want physical", c.img, c.fn)
		}
	}
	for _, img := range im.Spec.Images {
		var end uint64
		for _, f := range img.Functions {
			end = max(end, uint64(f.Offset)+f.Size)
		}
		if img.Name == "prog" && end > 0x1000 {
			t.Errorf("prog's functions span 0x%X bytes, want main's alone", end)
		}
		for _, f := range img.Functions {
			if f.Name == "__memcpy_avx512_unaligned_erms" && img.Name != "libc.so.6" {
				t.Errorf("%s defines %s, want libc.so.6 alone", img.Name, f.Name)
			}
		}
	}
}

// hasNote reports whether a note of im contains s.
func hasNote(im *importer.Imported, s string) bool {
	for _, n := range im.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// The rules of perf's inlined frames, one by one: a run of "(inlined)"
// frames at one ip ends at the frame printed with its dso; the same ip
// twice with a dso (recursion) is two physical frames; a frame printed
// "(inlined)" with no frame after it at its ip is physical, in the image
// other frames print its symbol with, else in the image whose sampled
// addresses span it or lie within 64 KiB of it, else in [unknown].
func TestPerfInlinedRules(t *testing.T) {
	t.Parallel()
	text := `prog  100/100  [000]  1.000000:  1000 cycles: 
	401005 inner+0x5 (inlined)
	401005 outer+0x5 (/bin/prog)
	401100 rec+0x10 (/bin/prog)
	401100 rec+0x10 (/bin/prog)
	7f0000001234 impl_name+0x34 (inlined)
	401200 main+0x20 (/bin/prog)
	7f0000001000 libc_start+0x10 (/lib/libc.so.6)

prog  100/100  [000]  1.000100:  1000 cycles: 
	ffffffff81000100 do_thing+0x10 ([kernel.kallsyms])
	7f0000092000 memcpy_impl+0x0 (inlined)
`
	im, err := importer.Import("inl.txt", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	importtest.EqualWeights(t, "stack", specStacks(im.Spec), map[string]float64{
		"inner <- outer <- rec <- rec <- impl_name <- main <- libc_start | [1]": 1000,
		"do_thing <- memcpy_impl | []":                                          1000,
	})
	for _, c := range []struct{ img, fn string }{{"prog", "outer"}, {"prog", "rec"}, {"libc.so.6", "impl_name"}, {"[unknown]", "memcpy_impl"}} {
		if _, f := importtest.Function(t, im.Spec, c.img, c.fn); f.Inline {
			t.Errorf("%s!%s is inline, want physical", c.img, c.fn)
		}
	}
	if _, f := importtest.Function(t, im.Spec, "prog", "inner"); !f.Inline {
		t.Errorf("inner: %+v, want inline", f)
	}
	if !hasNote(im, "2 callchain entries") {
		t.Errorf("notes %q: want 2 entries printed (inlined) to their end", im.Notes)
	}
}
