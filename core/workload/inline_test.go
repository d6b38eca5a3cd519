package workload_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
)

// inlined is a workload whose hot loop inlines two functions: mix, which
// exists only inlined, and scale, which also runs as a function of its
// own.
const inlined = `
instruction_bytes = 1
[[image]]
name = "app"
base = 0x400000
[[image.function]]
name = "loop"
offset = 0x100
size = 0x40
[[image.function]]
name = "scale"
offset = 0x140
size = 0x10
[[image.function]]
name = "main"
offset = 0x160
size = 0x20
[[image.function]]
name = "mix"
inline = true
[[process]]
name = "app"
[[process.stack]]
frames = ["mix", "loop", "main"]       # mix is inline: inlined without saying so
weight = 6
[[process.stack]]
frames = ["scale", "loop", "main"]
inlined = [1]                          # scale inlined into loop here
weight = 2
[[process.stack]]
frames = ["scale", "loop", "main"]     # the same frames, scale called
weight = 1
[[process.stack]]
frames = ["loop", "main"]
weight = 1
`

func TestInlinedFramesRunTheirCallersCode(t *testing.T) {
	s, err := workload.Parse("inlined.toml", []byte(inlined))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(x64)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		frames  string
		inlined []bool
		runs    string
		weight  float64
	}
	var got []row
	for _, w := range r.Threads[0].Mix {
		st := r.Stacks[w.Stack]
		var names []string
		for _, f := range st.Frames {
			names = append(names, r.Ref(f))
		}
		if r.Funcs[w.Func].Name != r.Funcs[st.Frames[st.Physical()]].Name {
			t.Errorf("stack %v runs %s, its physical frame is %d", names, r.Funcs[w.Func].Name, st.Physical())
		}
		got = append(got, row{strings.Join(names, " <- "), st.Inlined, r.Funcs[w.Func].Name, w.Weight})
	}
	want := []row{
		{"mix <- loop <- main", []bool{true, false, false}, "loop", 0.6},
		{"scale <- loop <- main", []bool{true, false, false}, "loop", 0.2},
		{"scale <- loop <- main", nil, "scale", 0.1},
		{"loop <- main", nil, "loop", 0.1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mix\n%+v\nwant\n%+v", got, want)
	}
	if len(r.Stacks) != 4 {
		t.Errorf("%d stacks, want 4: the same frames inlined or not are two stacks", len(r.Stacks))
	}
	// mix owns no address: no symbol lookup finds it
	for _, i := range r.ByAddress {
		if r.Funcs[i].Name == "mix" {
			t.Error("ByAddress lists the inline function mix")
		}
	}
	for a := uint64(0x400100); a < 0x400180; a++ {
		if f := r.FuncAt(a); f >= 0 && r.Funcs[f].Name == "mix" {
			t.Fatalf("FuncAt(0x%X) is the inline function", a)
		}
	}
	for _, f := range r.Funcs {
		if f.Name == "mix" && (f.Addr != 0 || f.Size != 0 || f.Instructions != 0 || !f.Inline) {
			t.Errorf("mix resolved as %+v: want no address and no instructions", f)
		}
	}
}

func TestInlineErrors(t *testing.T) {
	withFn := func(extra string) string {
		return strings.Replace(inlined, "name = \"mix\"\ninline = true", "name = \"mix\"\ninline = true\n"+extra, 1)
	}
	withStack := func(stack string) string { return inlined + "[[process.stack]]\n" + stack + "\n" }
	for _, tc := range []struct{ name, toml, want string }{
		{"inline with a size", withFn("size = 16"), `image[1].function[4].size: must not be given: an inline function has no code of its own`},
		{"inline with an offset", withFn("offset = 0x200"), `image[1].function[4].offset: must not be given`},
		{"inline with a weight", withFn("weight = 1"), `image[1].function[4].weight: must not be given`},
		{"inline with a cpi", withFn("cpi = 2"), `image[1].function[4].cpi: must not be given`},
		{"inline with hotspots", withFn("hotspot = [{ offset = 0, size = 1, weight = 1 }]"), `image[1].function[4].hotspot: must not be given`},
		{"inline with a caller", withFn(`caller = "loop"`), `image[1].function[4].caller: must not be given`},
		{"inline as a caller", strings.Replace(inlined, "name = \"scale\"\noffset = 0x140", "name = \"scale\"\ncaller = \"mix\"\noffset = 0x140", 1),
			`image[1].function[2].caller: function "mix" is inline`},
		{"inline outermost", withStack("frames = [\"loop\", \"mix\"]\nweight = 1"), `process[1].stack[5].frames[2]: function "mix" is inline (it has no code of its own) but is the outermost frame`},
		{"inline alone", withStack("frames = [\"mix\"]\nweight = 1"), `process[1].stack[5].frames[1]: function "mix" is inline`},
		{"outermost inlined", withStack("frames = [\"loop\", \"main\"]\ninlined = [2]\nweight = 1"), `process[1].stack[5].inlined[1]: frame 2 is the outermost`},
		{"no such frame", withStack("frames = [\"loop\", \"main\"]\ninlined = [0]\nweight = 1"), `process[1].stack[5].inlined[1]: frame 0 does not exist: the stack has 2 frames`},
		{"inline in a run list", strings.Replace(inlined, "[[process.stack]]", "[[process.thread]]\nrun = [{ function = \"mix\" }]\n[[process.stack]]", 1),
			`process[1].thread[1].run[1].function: function "mix" is inline`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := workload.Parse("inlined.toml", []byte(tc.toml))
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Resolve(x64)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// A process whose functions include an inline one runs the others when
// it lists no stacks: an inline function is never drawn on its own.
func TestInlineFunctionIsNotDrawnOnItsOwn(t *testing.T) {
	s := workload.Spec{Processes: []workload.Process{{Name: "app", Functions: []workload.Function{
		{Name: "f", Base: 0x10000, Size: 0x40, Weight: 1},
		{Name: "g", Inline: true},
	}}}}
	r, err := s.Resolve(x64)
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Threads[0].Mix; len(m) != 1 || r.Funcs[m[0].Func].Name != "f" {
		t.Errorf("mix %+v: want f alone", m)
	}
}
