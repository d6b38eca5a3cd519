package importtest

import (
	"bytes"
	"compress/gzip"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
)

// X64 and X86 are the targets tests resolve imported workloads for: x64
// and x86 Windows' MmUserProbeAddress.
var (
	X64 = workload.Target{UserProbeAddress: 0x7FFFFFFF0000}
	X86 = workload.Target{X86: true, UserProbeAddress: 0x7FFF0000}
)

// CheckInvariants checks what every imported workload must hold: the
// TOML round trip, functions in their image without overlaps, hotspots
// inside their function adding up to at most 1, names unique per image,
// stack frames that name defined functions, busy shares in (0, 1].
func CheckInvariants(t testing.TB, im *importer.Imported) {
	t.Helper()
	s := im.Spec
	if !s.CreateProcesses || s.InstructionBytes != 1 {
		t.Errorf("create_processes = %v, instruction_bytes = %d: want true and 1", s.CreateProcesses, s.InstructionBytes)
	}
	if text, err := im.TOML(); err != nil {
		t.Errorf("TOML: %v", err)
	} else if err := im.Check(text); err != nil {
		t.Error(err)
	}
	outliers := false
	for _, n := range im.Notes {
		outliers = outliers || strings.Contains(n, "cannot belong to their image")
	}
	defined := map[string]int{}
	type rng struct {
		lo, hi uint64
		name   string
	}
	var all []rng
	for _, img := range s.Images {
		names := map[string]bool{}
		for _, f := range img.Functions {
			if names[f.Name] {
				t.Errorf("image %s defines %q twice", img.Name, f.Name)
			}
			names[f.Name] = true
			defined[f.Name]++
			defined[img.Name+"!"+f.Name]++
			if f.Inline {
				if f.Size != 0 || f.Offset != 0 || len(f.Hotspots) > 0 || f.Weight != 0 {
					t.Errorf("%s!%s is inline but has code: %+v", img.Name, f.Name, f)
				}
				continue
			}
			lo := uint64(img.Base) + uint64(f.Offset)
			all = append(all, rng{lo, lo + f.Size, img.Name + "!" + f.Name})
			var sum float64
			for _, h := range f.Hotspots {
				if h.Offset+h.Size > f.Size || h.Size == 0 {
					t.Errorf("%s!%s: hotspot at +0x%X (%d bytes) outside its %d bytes", img.Name, f.Name, h.Offset, h.Size, f.Size)
				}
				sum += h.Weight
			}
			// every sample has an address, but an outlier's (see
			// native/outliers.go), whose weight spreads over its function
			if len(f.Hotspots) > 0 && (sum > 1+1e-9 || !outliers && math.Abs(sum-1) > 1e-9) {
				t.Errorf("%s!%s: hotspot weights add up to %v, want 1 (every sample has an address)", img.Name, f.Name, sum)
			}
		}
	}
	slices.SortFunc(all, func(a, b rng) int {
		if a.lo < b.lo {
			return -1
		}
		if a.lo > b.lo {
			return 1
		}
		return 0
	})
	for i := 1; i < len(all); i++ {
		if all[i-1].hi > all[i].lo {
			t.Errorf("%s [0x%X, 0x%X) overlaps %s [0x%X, …)", all[i-1].name, all[i-1].lo, all[i-1].hi, all[i].name, all[i].lo)
		}
	}
	checkFrames := func(ss []workload.Stack) {
		for _, st := range ss {
			if len(st.Frames) == 0 || st.Weight <= 0 {
				t.Errorf("stack %v weight %v: want frames and a positive weight", st.Frames, st.Weight)
			}
			for i, pos := range st.Inlined {
				if pos < 1 || pos >= len(st.Frames) || i > 0 && pos <= st.Inlined[i-1] {
					t.Errorf("stack %v: inlined %v, want increasing positions below the outermost frame", st.Frames, st.Inlined)
				}
			}
			for _, f := range st.Frames {
				if defined[f] == 0 {
					t.Errorf("stack frame %q names no function", f)
				} else if !strings.Contains(f, "!") && defined[f] > 1 {
					t.Errorf("stack frame %q is ambiguous: several images define it", f)
				}
			}
		}
	}
	for _, p := range s.Processes {
		checkFrames(p.Stacks)
		for _, th := range p.Threads {
			checkFrames(th.Stacks)
			if th.Busy <= 0 || th.Busy > 1 {
				t.Errorf("process %s: busy %v outside (0, 1]", p.Name, th.Busy)
			}
		}
	}
}

// LeafWeights sums the workload's stacks' weights by leaf reference.
func LeafWeights(s *workload.Spec) map[string]float64 {
	out := map[string]float64{}
	for _, p := range s.Processes {
		for _, st := range p.Stacks {
			out[st.Frames[0]] += st.Weight
		}
		for _, th := range p.Threads {
			for _, st := range th.Stacks {
				out[st.Frames[0]] += st.Weight
			}
		}
	}
	return out
}

// StackWeights sums the workload's stacks' weights by frames (joined with
// " <- ").
func StackWeights(s *workload.Spec) map[string]float64 {
	out := map[string]float64{}
	for _, p := range s.Processes {
		for _, st := range p.Stacks {
			out[strings.Join(st.Frames, " <- ")] += st.Weight
		}
		for _, th := range p.Threads {
			for _, st := range th.Stacks {
				out[strings.Join(st.Frames, " <- ")] += st.Weight
			}
		}
	}
	return out
}

// Function finds a function by image and name.
func Function(t testing.TB, s *workload.Spec, img, name string) (workload.Image, workload.Function) {
	t.Helper()
	for _, i := range s.Images {
		if i.Name != img {
			continue
		}
		for _, f := range i.Functions {
			if f.Name == name {
				return i, f
			}
		}
	}
	t.Fatalf("no function %s!%s", img, name)
	return workload.Image{}, workload.Function{}
}

// EqualWeights compares two weight maps exactly (sums of the same
// integers in float64 are exact).
func EqualWeights(t testing.TB, what string, got, want map[string]float64) {
	t.Helper()
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s %q: weight %v, want %v", what, k, got[k], w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s %q: weight %v, not in the source", what, k, g)
		}
	}
}

// NotesWith are the notes of im that contain s.
func NotesWith(im *importer.Imported, s string) []string {
	var out []string
	for _, n := range im.Notes {
		if strings.Contains(n, s) {
			out = append(out, n)
		}
	}
	return out
}

// Approx says whether a and b agree to a relative 1e-12.
func Approx(a, b float64) bool { return a-b < 1e-12*max(1, b) && b-a < 1e-12*max(1, b) }

// Busies are the busy shares of the workload's threads, process by
// process.
func Busies(s *workload.Spec) map[string][]float64 {
	out := map[string][]float64{}
	for _, p := range s.Processes {
		for _, t := range p.Threads {
			out[p.Name] = append(out[p.Name], t.Busy)
		}
	}
	return out
}

// Near says whether a and b agree to 1e-9 relative.
func Near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// ImageNames are the workload's images' names.
func ImageNames(s *workload.Spec) []string {
	var out []string
	for _, img := range s.Images {
		out = append(out, img.Name)
	}
	return out
}

// ApproxWeights compares two weight maps to a relative 1e-9 (weights
// converted from units or spread over contexts are not exact sums).
func ApproxWeights(t testing.TB, what string, got, want map[string]float64) {
	t.Helper()
	for k, w := range want {
		if g, ok := got[k]; !ok || math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
			t.Errorf("%s %q: weight %v, want %v", what, k, got[k], w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s %q: weight %v, not in the source", what, k, g)
		}
	}
}

// Gzip is data gzipped.
func Gzip(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Gunzip is gzipped data inflated.
func Gunzip(t testing.TB, data []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
