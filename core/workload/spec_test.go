package workload_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
)

// x64 and x86 are the targets of the kernel's two architectures
// (MmUserProbeAddress 0x7FFFFFEFFFF and 0x7FFEFFFF).
var (
	x64 = workload.Target{UserProbeAddress: 0x7FFFFFEFFFF}
	x86 = workload.Target{X86: true, UserProbeAddress: 0x7FFEFFFF}
)

// proc is a process handle, as a caller attaches one.
type proc string

func (p proc) Name() string { return string(p) }

func TestParseFull(t *testing.T) {
	s, err := workload.Load("testdata/full.toml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(x64)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Threads) != 2 || len(r.Threads[0].Mix) != 2 || r.Threads[0].Mix[1].Weight < 0.39 || r.Threads[0].Mix[1].Weight > 0.41 {
		t.Errorf("threads %+v", r.Threads)
	}
	isr := r.Funcs[r.ISR[0].Func]
	if isr.Name != "DriverIsr" || isr.Addr != 0xFFFFF80001000100 || isr.Mode != workload.KernelMode {
		t.Errorf("isr %+v", isr)
	}
	if f := r.Funcs[r.FuncAt(0x140001104)]; f.Name != "main" || f.Instructions != 0x200 {
		t.Errorf("FuncAt main: %+v", f)
	}
	if r.FuncAt(0x140000FFF) != -1 {
		t.Error("FuncAt found a function before main")
	}
	if r.Funcs[r.Idle].Name != workload.IdleFunction {
		t.Error("no idle function")
	}
	// the resolved spec round-trips through TOML
	b, err := workload.Encode(&r.Spec)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := workload.Parse("resolved.toml", b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if _, err := s2.Resolve(x64); err != nil {
		t.Fatalf("resolved spec does not resolve: %v\n%s", err, b)
	}
}

func TestOneProcess(t *testing.T) {
	p := proc("app")
	w := workload.OneProcess("ignored", p, []workload.Function{{Name: "f", Base: 0x10000, Size: 0x100, Weight: 2}, {Name: "g", Base: 0x10100, Size: 0x100, Weight: 6}})
	if w.Processes[0].Name != "app" || w.Processes[0].Proc != p {
		t.Errorf("process %+v: the handle names it", w.Processes[0])
	}
	r, err := w.Resolve(x64)
	if err != nil {
		t.Fatal(err)
	}
	if r.Spec.InstructionBytes != 4 || r.Spec.QuantumUS != workload.DefaultQuantumUS || r.Threads[0].Mix[1].Weight != 0.75 || r.Funcs[0].CPI != 1 {
		t.Errorf("defaults not filled: %+v", r.Spec)
	}
	if w := workload.OneProcess("bench", nil, nil); w.Processes[0].Name != "bench" {
		t.Errorf("no handle: name %q", w.Processes[0].Name)
	}
}

func TestKernelImageAndModeFollowTheTarget(t *testing.T) {
	w := workload.OneProcess("app", nil, []workload.Function{
		{Name: "user", Base: 0x10000, Size: 0x100, Weight: 1},
		{Name: "high", Base: 0x90000000, Size: 0x100, Weight: 1},
	})
	for _, tt := range []struct {
		target   workload.Target
		idle     uint64
		highMode workload.Mode
	}{
		{x64, 0xFFFFF80000001000, workload.User},
		{x86, 0x80401000, workload.KernelMode},
	} {
		r, err := w.Resolve(tt.target)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Funcs[r.Idle].Addr; got != tt.idle {
			t.Errorf("%+v: idle loop at %#x, want %#x", tt.target, got, tt.idle)
		}
		if got := r.Funcs[1].Mode; got != tt.highMode {
			t.Errorf("%+v: a function at 0x90000000 runs in mode %d, want %d", tt.target, got, tt.highMode)
		}
	}
}

func TestErrorsNameTheField(t *testing.T) {
	f := func(mod func(*workload.Function)) []workload.Function {
		fs := []workload.Function{{Name: "a", Base: 0x10000, Size: 0x100, Weight: 1}, {Name: "b", Base: 0x20000, Size: 0x100, Weight: 1}}
		mod(&fs[1])
		return fs
	}
	tests := []struct {
		name string
		fns  []workload.Function
		want string
	}{
		{"size", f(func(f *workload.Function) { f.Size = 0 }), "process[1].function[2].size: must be > 0"},
		{"weight", f(func(f *workload.Function) { f.Weight = -1 }), "process[1].function[2].weight: must be >= 0"},
		{"name", f(func(f *workload.Function) { f.Name = "" }), "process[1].function[2].name: must be given"},
		{"dup", f(func(f *workload.Function) { f.Name = "a" }), `process[1].function[2].name: function "a" is defined twice`},
		{"cpi", f(func(f *workload.Function) { f.CPI = -2 }), "process[1].function[2].cpi"},
		{"rate", f(func(f *workload.Function) { f.CacheMissRate = 2 }), "process[1].function[2].cache_miss_rate: must be between 0 and 1"},
		{"overlap", f(func(f *workload.Function) { f.Base = 0x10080 }), "overlap"},
		{"offset", f(func(f *workload.Function) { f.Offset = 4 }), "process[1].function[2].offset"},
		{"hotspot", f(func(f *workload.Function) { f.Hotspots = []workload.Hotspot{{Offset: 0xF0, Size: 0x20, Weight: 0.5}} }), "process[1].function[2].hotspot[1]: offset"},
		{"hotweight", f(func(f *workload.Function) {
			f.Hotspots = []workload.Hotspot{{Offset: 0, Size: 4, Weight: 0.7}, {Offset: 8, Size: 4, Weight: 0.7}}
		}), "process[1].function[2].hotspot: weights add up"},
		{"loop", f(func(f *workload.Function) { f.LoopInstructions = 1000 }), "process[1].function[2].loop_instructions"},
		{"zero", []workload.Function{{Name: "a", Base: 0x10000, Size: 4}}, "the weights add up to 0"},
		{"nothing", nil, "process[1].thread[1]: has nothing to run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := workload.OneProcess("", proc("app"), tt.fns).Resolve(x64)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			var fe *workload.FieldError
			if !errors.As(err, &fe) {
				t.Errorf("error %v is no FieldError", err)
			}
		})
	}
	if _, err := workload.OneProcess("", nil, f(func(*workload.Function) {})).Resolve(x64); err == nil || !strings.Contains(err.Error(), "process[1].name: must be given") {
		t.Errorf("no name, no handle: %v", err)
	}
}

// A workload whose functions lie outside the machine's address space
// cannot exist: an error naming the field, not a silent run.
func TestAddressSpace(t *testing.T) {
	p := proc("app")
	for _, tc := range []struct {
		name   string
		target workload.Target
		fn     workload.Function
		want   string // "" for none
	}{
		{"x86 above 4 GB", x86, workload.Function{Name: "f", Base: 0x140001000, Size: 0x100, Weight: 1}, "function[1].base: 0x140001000…0x1400010FF lies above the x86 machine's 4 GB"},
		{"x86 crossing 4 GB", x86, workload.Function{Name: "f", Base: 0xFFFFFF00, Size: 0x200, Weight: 1}, "function[1].base"},
		{"x86 kernel code", x86, workload.Function{Name: "f", Base: 0x90001000, Size: 0x100, Weight: 1}, ""},
		{"x64 image base", x64, workload.Function{Name: "f", Base: 0x140001000, Size: 0x100, Weight: 1}, ""},
		{"x64 not canonical", x64, workload.Function{Name: "f", Base: 0x0000800000000000, Size: 0x100, Weight: 1}, "function[1].base: 0x800000000000…0x8000000000FF is not in the x64 machine's address space"},
		{"x64 straddling user space's end", x64, workload.Function{Name: "f", Base: 0x7FFFFFFFFF00, Size: 0x200, Weight: 1}, "not canonical"},
		{"x64 system space", x64, workload.Function{Name: "f", Base: 0xFFFFF80000400000, Size: 0x100, Weight: 1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := workload.OneProcess("app", p, []workload.Function{tc.fn}).Resolve(tc.target)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	spec := &workload.Spec{
		Images:    []workload.Image{{Name: "app.exe", Base: 0x140000000, Functions: []workload.Function{{Name: "main", Offset: 0x1000, Size: 0x100, Weight: 1}}}},
		Processes: []workload.Process{{Name: "app", Proc: p}},
	}
	if _, err := spec.Resolve(x86); err == nil || !strings.Contains(err.Error(), "image[1].function[1].offset: 0x140001000") {
		t.Errorf("an image above 4 GB on x86: %v", err)
	}
}

// Issue 28 §3: an x64 workload on an x86 machine is one line saying what
// to do, not an error per function (47 to 140 lines for an imported
// profile that never said to import it for x86).
func TestX64WorkloadOnX86IsOneLine(t *testing.T) {
	image := func(name string, base workload.Address, n int) workload.Image {
		im := workload.Image{Name: name, Base: base}
		for i := range n {
			im.Functions = append(im.Functions, workload.Function{Name: fmt.Sprintf("%s%d", name, i), Offset: workload.Address(0x1000 * (i + 1)), Size: 0x10, Weight: 1})
		}
		return im
	}
	for _, tc := range []struct {
		name     string
		imported bool
		images   []workload.Image
		want     []string
	}{
		{"imported", true, []workload.Image{image("prog", 0x400000, 2), image("libc.so", 0x7F0000000000, 30), image("kernel", 0xFFFFFFFF81000000, 10)},
			[]string{"image[2].function[1].offset: 0x7F0000001000…0x7F000000100F and 39 more functions lie above the x86 machine's 4 GB address space (0x0…0xFFFFFFFF): it was imported for x64: re-import its profile with `proflab workload import --arch x86`, or make the machine x64"}},
		{"imported, one function", true, []workload.Image{image("libc.so", 0x7F0000000000, 1)},
			[]string{"image[1].function[1].offset: 0x7F0000001000…0x7F000000100F lies above", "re-import its profile"}},
		{"hand-written", false, []workload.Image{image("app.exe", 0x140000000, 3)},
			[]string{"image[1].function[1].offset: 0x140001000…0x14000100F and 2 more functions lie above the x86 machine's 4 GB address space (0x0…0xFFFFFFFF): move its images below 4 GB (user code below 0x80000000, kernel code from 0x80000000), or make the machine x64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := &workload.Spec{Images: tc.images, CreateProcesses: tc.imported, Processes: []workload.Process{{Name: "app", Proc: proc("app")}}}
			_, err := spec.Resolve(x86)
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("%d lines:\n%s", strings.Count(err.Error(), "\n")+1, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

func TestTOMLErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"unknown", "[[process]]\nname = \"a\"\ncolour = 1\n", `w.toml:3: unknown key "process.colour"`},
		{"type", "[[process]]\nname = 3\n", "w.toml:2"},
		{"syntax", "name = \n", "w.toml:1"},
		{"address", "[[image]]\nname = \"k\"\nbase = \"0xZZ\"\n", "address"},
		{"negative", "[[image]]\nname = \"k\"\nbase = -5\n", "negative"},
	}
	for _, tt := range tests {
		_, err := workload.Parse("w.toml", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	// field errors of a full workload carry the process/thread path
	s, err := workload.Parse("w.toml", []byte("[[process]]\nname = \"a\"\n[[process.function]]\nname = \"f\"\nbase = 0x10000\nsize = 16\nweight = 1\n[[process.thread]]\nbusy = 2\nrun = [{function = \"nope\"}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Resolve(x64)
	for _, want := range []string{"process[1].thread[1].busy", `process[1].thread[1].run[1].function: no function named "nope"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	if _, err := workload.Load("testdata/nope.toml"); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("error %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func FuzzParse(f *testing.F) {
	b, _ := os.ReadFile("testdata/full.toml")
	f.Add(b)
	f.Add([]byte("[[process]]\nname = \"a\"\n[[process.function]]\nname=\"f\"\nbase=1\nsize=1\nweight=1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := workload.Parse("fuzz.toml", data)
		if err != nil {
			return
		}
		// What parses encodes (workload-mM-rN.toml of a run folder) to
		// TOML that parses back to the same workload.
		b, err := workload.Encode(s)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		back, err := workload.Parse("back.toml", b)
		if err != nil {
			t.Fatalf("the encoded workload does not parse: %v\n%s", err, b)
		}
		// Equal values, or (NaN is not equal to itself) equal encodings.
		if b2, err := workload.Encode(back); !reflect.DeepEqual(s, back) && (err != nil || !bytes.Equal(b, b2)) {
			t.Fatalf("round trip changed the workload:\n%+v\n%+v\n%s\n%s", s, back, b, b2)
		}
		_, _ = s.Resolve(x64)
		_, _ = s.Resolve(x86)
	})
}
