package luart

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
)

func newKernelMachine(t *testing.T) *kernel.Machine {
	t.Helper()
	v, _ := kernel.ParseVersion(kernel.DefaultVersion)
	m, err := kernel.NewMachine(kernel.Config{Version: v, Arch: kernel.X64, CPUs: 2, Vendor: "GenuineIntel", FreqMHz: 3000})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWorkloadFromTable(t *testing.T) {
	m := newKernelMachine(t)
	p := m.NewProcess("app", kernel.Token{})
	s, minimal, err := workloadFromTable(map[string]any{
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
	if !minimal || s.Processes[0].Proc != p || s.Processes[0].Name != "app" {
		t.Errorf("minimal %v, process %+v", minimal, s.Processes[0])
	}
	r, err := s.Resolve(sim.Target(kernel.X64))
	if err != nil {
		t.Fatal(err)
	}
	if r.Spec.QuantumUS != 2000 || r.Threads[0].CPU != 1 || r.Funcs[0].Hotspots[0].Size != 16 || r.Funcs[1].LoopInstructions != 8 || r.Spec.Kernel.InterruptShare != 0.1 {
		t.Errorf("decoded %+v", r.Spec)
	}
	full, minimal, err := workloadFromTable(map[string]any{"process": []any{map[string]any{"proc": p, "functions": []any{}}}})
	if err != nil || minimal || full.Processes[0].Proc != p {
		t.Errorf("full form: %+v, minimal %v, %v", full, minimal, err)
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
		_, _, err := workloadFromTable(b.t)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("error %v, want %q", err, b.want)
		}
	}
}

// TestMinimalFormNamesItsFields: the minimal form's errors name its own
// fields (functions[i], thread[i]), not the full form's process[1]. paths.
func TestMinimalFormNamesItsFields(t *testing.T) {
	m := newKernelMachine(t)
	p := m.NewProcess("app", kernel.Token{})
	target := sim.Target(kernel.X64)
	fn := func(name string, base, size float64) map[string]any {
		return map[string]any{"name": name, "base": base, "size": size, "weight": 1.0}
	}
	tests := []struct {
		name  string
		table map[string]any
		want  string
	}{
		{"size", map[string]any{"process": p, "functions": []any{fn("a", 0x10000, 0x100), fn("b", 0x20000, 0)}}, "functions[2].size: must be > 0"},
		{"thread", map[string]any{"process": p, "functions": []any{fn("a", 0x10000, 0x100)}, "threads": []any{map[string]any{"busy": 2.0}}}, "thread[1].busy: must be > 0 and at most 1"},
		{"run", map[string]any{"process": p, "functions": []any{fn("a", 0x10000, 0x100)}, "threads": []any{map[string]any{"run": []any{map[string]any{"function": "z"}}}}}, `thread[1].run[1].function: no function named "z"`},
		{"overlap", map[string]any{"process": p, "functions": []any{fn("a", 0x10000, 0x100), fn("b", 0x10080, 0x100)}}, "overlap"},
		{"none", map[string]any{"process": p, "functions": []any{}}, "functions: must list at least one function\nthread[1]: has nothing to run"},
		{"image first", map[string]any{"process": p, "functions": []any{}, "images": []any{map[string]any{"functions": []any{}}}},
			"image[1].name: must be given\nfunctions: must list at least one function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, minimal, err := workloadFromTable(tt.table)
			if err != nil || !minimal {
				t.Fatalf("%v (minimal %v)", err, minimal)
			}
			err = checkMinimal(s, target)
			if err == nil {
				_, err = s.Resolve(target)
				err = minimalError(err)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "process[1]") {
				t.Errorf("error %v names the full form's process[1]", err)
			}
		})
	}
	if err := minimalError(nil); err != nil {
		t.Errorf("minimalError(nil) = %v", err)
	}
	other := workload.FieldError{Field: "image[1].name", Msg: "x"}
	if err := minimalError(&other); err.Error() != "image[1].name: x" {
		t.Errorf("an image's error became %v", err)
	}
}
