package workload_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
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
	r, err := s.Resolve(x64)
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

func TestCallersErrors(t *testing.T) {
	fn := func(name string, base uint64, caller string) workload.Function {
		return workload.Function{Name: name, Base: workload.Address(base), Size: 0x100, Weight: 1, Caller: caller}
	}
	for _, tc := range []struct {
		fns  []workload.Function
		want string
	}{
		{[]workload.Function{fn("a", 0x10000, "nobody")}, `process[1].function[1].caller: no function named "nobody"`},
		{[]workload.Function{fn("a", 0x10000, "a")}, `process[1].function[1].caller: function "a" cannot call itself`},
		{[]workload.Function{fn("a", 0x10000, "b"), fn("b", 0x10100, "a")}, `function "a" is in a cycle of callers`},
	} {
		s := &workload.Spec{Processes: []workload.Process{{Name: "app", Functions: tc.fns}}}
		if _, err := s.Resolve(x64); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
