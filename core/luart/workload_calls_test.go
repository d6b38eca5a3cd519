package luart

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/kernel"
)

// The Lua table form carries the call structure (caller) like the TOML
// form.
func TestWorkloadTableCallers(t *testing.T) {
	p := newKernelMachine(t).NewProcess("app", kernel.Token{})
	fn := func(name string, base float64, caller any) map[string]any {
		f := map[string]any{"name": name, "base": base, "size": float64(0x100), "weight": float64(1)}
		if caller != nil {
			f["caller"] = caller
		}
		return f
	}
	s, _, err := workloadFromTable(map[string]any{"process": p, "functions": []any{
		fn("main", 0x10000, nil), fn("work", 0x10100, "main"), fn("helper", 0x10200, "work")}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(sim.Target(kernel.X64))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range r.Stack(2) {
		names = append(names, r.Funcs[k].Name)
	}
	if strings.Join(names, "<") != "helper<work<main" {
		t.Errorf("stack of helper: %v", names)
	}
	if _, _, err := workloadFromTable(map[string]any{"process": p, "functions": []any{fn("a", 0x10000, 3.0)}}); err == nil ||
		!strings.Contains(err.Error(), "functions[1].caller: must be a string") {
		t.Errorf("a numeric caller: %v", err)
	}
	s, _, err = workloadFromTable(map[string]any{"process": p, "functions": []any{fn("a", 0x10000, "nobody")}})
	if err == nil {
		_, err = s.Resolve(sim.Target(kernel.X64))
	}
	if err == nil || !strings.Contains(err.Error(), `function[1].caller: no function named "nobody"`) {
		t.Errorf("an unknown caller: %v", err)
	}
}
