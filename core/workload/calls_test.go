package workload_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
)

const callsTOML = `
[[image]]
name = "app.exe"
base = 0x140000000
  [[image.function]]
  name = "main"
  offset = 0x1000
  size = 0x100
  weight = 1
  [[image.function]]
  name = "parse"
  offset = 0x2000
  size = 0x100
  weight = 2
  caller = "main"
  [[image.function]]
  name = "lex"
  offset = 0x3000
  size = 0x100
  weight = 3
  caller = "parse"

[[process]]
name = "app"
`

func stackNames(r *workload.Resolved, f string) string {
	for i, fn := range r.Funcs {
		if fn.Name == f {
			var names []string
			for _, k := range r.Stack(i) {
				names = append(names, r.Funcs[k].Name)
			}
			return strings.Join(names, "<")
		}
	}
	return "?"
}

func TestCallersTOML(t *testing.T) {
	s, err := workload.Parse("calls.toml", []byte(callsTOML))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(kernel.X64)
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{"lex": "lex<parse<main", "parse": "parse<main", "main": "main", workload.IdleFunction: workload.IdleFunction} {
		if got := stackNames(r, f); got != want {
			t.Errorf("stack of %s = %s, want %s", f, got, want)
		}
	}
	// the resolved workload keeps its callers
	b, err := workload.Encode(&r.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `caller = "parse"`) {
		t.Errorf("encoded workload lost the callers:\n%s", b)
	}
}

func TestCallersTable(t *testing.T) {
	p := newMachine(t).NewProcess("app", kernel.Token{})
	fn := func(name string, base float64, caller string) map[string]any {
		f := map[string]any{"name": name, "base": base, "size": float64(0x100), "weight": float64(1)}
		if caller != "" {
			f["caller"] = caller
		}
		return f
	}
	s, err := workload.FromTable(map[string]any{"process": p, "functions": []any{
		fn("main", 0x10000, ""), fn("work", 0x10100, "main"), fn("helper", 0x10200, "work")}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(kernel.X64)
	if err != nil {
		t.Fatal(err)
	}
	if got := stackNames(r, "helper"); got != "helper<work<main" {
		t.Errorf("stack %s", got)
	}
	bad := []struct {
		fns  []any
		want string
	}{
		{[]any{fn("a", 0x10000, "nobody")}, `functions[1].caller: no function named "nobody"`},
		{[]any{fn("a", 0x10000, "a")}, `functions[1].caller: function "a" cannot call itself`},
		{[]any{fn("a", 0x10000, "b"), fn("b", 0x10100, "a")}, `function "a" is in a cycle of callers`},
		{[]any{map[string]any{"name": "a", "base": float64(0x10000), "size": float64(16), "caller": 3.0}}, "functions[1].caller: must be a string"},
	}
	for _, b := range bad {
		s, err := workload.FromTable(map[string]any{"process": p, "functions": b.fns})
		if err == nil {
			_, err = s.Resolve(kernel.X64)
		}
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("error %v, want %q", err, b.want)
		}
	}
}
