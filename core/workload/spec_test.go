package workload_test

import (
	"os"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
)

func TestParseFull(t *testing.T) {
	s, err := workload.Load("testdata/full.toml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(kernel.X64)
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
	if _, err := s2.Resolve(kernel.X64); err != nil {
		t.Fatalf("resolved spec does not resolve: %v\n%s", err, b)
	}
}

func TestMinimal(t *testing.T) {
	m := newMachine(t)
	p := m.NewProcess("app", kernel.Token{})
	r, err := workload.Minimal(p, []workload.Function{{Name: "f", Base: 0x10000, Size: 0x100, Weight: 2}, {Name: "g", Base: 0x10100, Size: 0x100, Weight: 6}}).Resolve(kernel.X64)
	if err != nil {
		t.Fatal(err)
	}
	if r.Spec.InstructionBytes != 4 || r.Spec.QuantumUS != workload.DefaultQuantumUS || r.Threads[0].Mix[1].Weight != 0.75 || r.Funcs[0].CPI != 1 {
		t.Errorf("defaults not filled: %+v", r.Spec)
	}
}

func newMachine(t *testing.T) *kernel.Machine {
	v, _ := kernel.ParseVersion(kernel.DefaultVersion)
	m, err := kernel.NewMachine(kernel.Config{Version: v, Arch: kernel.X64, CPUs: 2, Vendor: "GenuineIntel", FreqMHz: 3000})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMinimalErrorsNameTheField(t *testing.T) {
	m := newMachine(t)
	p := m.NewProcess("app", kernel.Token{})
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
		{"size", f(func(f *workload.Function) { f.Size = 0 }), "functions[2].size: must be > 0"},
		{"weight", f(func(f *workload.Function) { f.Weight = -1 }), "functions[2].weight: must be >= 0"},
		{"name", f(func(f *workload.Function) { f.Name = "" }), "functions[2].name: must be given"},
		{"dup", f(func(f *workload.Function) { f.Name = "a" }), `functions[2].name: function "a" is defined twice`},
		{"cpi", f(func(f *workload.Function) { f.CPI = -2 }), "functions[2].cpi"},
		{"rate", f(func(f *workload.Function) { f.CacheMissRate = 2 }), "functions[2].cache_miss_rate: must be between 0 and 1"},
		{"overlap", f(func(f *workload.Function) { f.Base = 0x10080 }), "overlap"},
		{"offset", f(func(f *workload.Function) { f.Offset = 4 }), "functions[2].offset"},
		{"hotspot", f(func(f *workload.Function) { f.Hotspots = []workload.Hotspot{{Offset: 0xF0, Size: 0x20, Weight: 0.5}} }), "functions[2].hotspot[1]: offset"},
		{"hotweight", f(func(f *workload.Function) {
			f.Hotspots = []workload.Hotspot{{Offset: 0, Size: 4, Weight: 0.7}, {Offset: 8, Size: 4, Weight: 0.7}}
		}), "functions[2].hotspot: weights add up"},
		{"loop", f(func(f *workload.Function) { f.LoopInstructions = 1000 }), "functions[2].loop_instructions"},
		{"zero", []workload.Function{{Name: "a", Base: 0x10000, Size: 4}}, "the weights add up to 0"},
		{"none", nil, "functions: must list at least one function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := workload.Minimal(p, tt.fns).Resolve(kernel.X64)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := workload.Minimal(nil, f(func(*workload.Function) {})).Resolve(kernel.X64); err == nil || !strings.Contains(err.Error(), "process: must be a process") {
		t.Errorf("nil process: %v", err)
	}
}

// A workload whose functions lie outside the machine's address space
// cannot exist: an error naming the field, not a silent run.
func TestAddressSpace(t *testing.T) {
	m := newMachine(t)
	p := m.NewProcess("app", kernel.Token{})
	for _, tc := range []struct {
		name string
		arch kernel.Arch
		fn   workload.Function
		want string // "" for none
	}{
		{"x86 above 4 GB", kernel.X86, workload.Function{Name: "f", Base: 0x140001000, Size: 0x100, Weight: 1}, "functions[1].base: 0x140001000…0x1400010FF lies above the x86 machine's 4 GB"},
		{"x86 crossing 4 GB", kernel.X86, workload.Function{Name: "f", Base: 0xFFFFFF00, Size: 0x200, Weight: 1}, "functions[1].base"},
		{"x86 kernel code", kernel.X86, workload.Function{Name: "f", Base: 0x90001000, Size: 0x100, Weight: 1}, ""},
		{"x64 image base", kernel.X64, workload.Function{Name: "f", Base: 0x140001000, Size: 0x100, Weight: 1}, ""},
		{"x64 not canonical", kernel.X64, workload.Function{Name: "f", Base: 0x0000800000000000, Size: 0x100, Weight: 1}, "functions[1].base: 0x800000000000…0x8000000000FF is not in the x64 machine's address space"},
		{"x64 straddling user space's end", kernel.X64, workload.Function{Name: "f", Base: 0x7FFFFFFFFF00, Size: 0x200, Weight: 1}, "not canonical"},
		{"x64 system space", kernel.X64, workload.Function{Name: "f", Base: 0xFFFFF80000400000, Size: 0x100, Weight: 1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := workload.Minimal(p, []workload.Function{tc.fn}).Resolve(tc.arch)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	spec := &workload.Spec{
		Images:    []workload.Image{{Name: "app.exe", Base: 0x140000000, Functions: []workload.Function{{Name: "main", Offset: 0x1000, Size: 0x100, Weight: 1}}}},
		Processes: []workload.Process{{Proc: p}},
	}
	if _, err := spec.Resolve(kernel.X86); err == nil || !strings.Contains(err.Error(), "image[1].function[1].offset: 0x140001000") {
		t.Errorf("an image above 4 GB on x86: %v", err)
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
	_, err = s.Resolve(kernel.X64)
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
		_, _ = s.Resolve(kernel.X64)
		_, _ = s.Resolve(kernel.X86)
	})
}

func TestFromTable(t *testing.T) {
	m := newMachine(t)
	p := m.NewProcess("app", kernel.Token{})
	s, err := workload.FromTable(map[string]any{
		"process": p,
		"functions": []any{
			map[string]any{"name": "f", "base": float64(0x10000), "size": float64(0x100), "weight": float64(1), "cache_miss_rate": 0.1,
				"hotspots": []any{map[string]any{"offset": float64(0), "size": float64(16), "weight": 0.5}}},
			map[string]any{"name": "g", "base": uint64(0x10100), "size": 64, "weight": 3.0, "loop_instructions": float64(8)},
		},
		"quantum_us": float64(2000),
		"threads":    []any{map[string]any{"cpu": float64(1)}},
		"kernel":     map[string]any{"interrupt_share": 0.1},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(kernel.X64)
	if err != nil {
		t.Fatal(err)
	}
	if r.Spec.QuantumUS != 2000 || r.Threads[0].CPU != 1 || r.Funcs[0].Hotspots[0].Size != 16 || r.Funcs[1].LoopInstructions != 8 || r.Spec.Kernel.InterruptShare != 0.1 {
		t.Errorf("decoded %+v", r.Spec)
	}
	bad := []struct {
		t    map[string]any
		want string
	}{
		{map[string]any{"process": p, "functions": []any{map[string]any{"name": "f", "size": "big"}}}, "functions[1].size: must be a number"},
		{map[string]any{"process": p, "functions": []any{map[string]any{"nam": "f"}}}, "functions[1].nam: unknown key"},
		{map[string]any{"process": p, "functions": []any{map[string]any{"name": "f", "base": float64(1 << 60)}}}, "functions[1].base: 1.152921504606847e+18 is above 2^53"},
		{map[string]any{"process": p, "functions": []any{map[string]any{"name": "f", "size": -1.0}}}, "functions[1].size: must be a non-negative integer"},
		{map[string]any{"functions": []any{}}, "process: must be a process"},
		{map[string]any{"process": []any{map[string]any{"proc": "x"}}}, "process[1].proc: must be a process"},
	}
	for _, b := range bad {
		_, err := workload.FromTable(b.t)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("error %v, want %q", err, b.want)
		}
	}
}
