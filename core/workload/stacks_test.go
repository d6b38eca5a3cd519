package workload_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
)

// twoImages is a workload whose two images both define "helper", run
// through stacks.
const twoImages = `
instruction_bytes = 1
[[image]]
name = "app"
base = 0x400000
[[image.function]]
name = "main"
offset = 0x100
size = 0x100
[[image.function]]
name = "helper"
offset = 0x200
size = 0x40
[[image]]
name = "libc.so"
base = 0x7F0000000000
[[image.function]]
name = "helper"
offset = 0x1000
size = 0x80
[[image.function]]
name = "memcpy"
offset = 0x2000
size = 0x80
[[process]]
name = "app"
[[process.stack]]
frames = ["memcpy", "app!helper", "main"]
weight = 3
[[process.stack]]
frames = ["memcpy", "libc.so!helper", "main"]
weight = 1
[[process.stack]]
frames = ["main"]
weight = 4
[[process.thread]]
[[process.thread]]
[[process.thread.stack]]
frames = ["memcpy", "app!helper", "main"]
weight = 1
`

func TestStacksResolve(t *testing.T) {
	s, err := workload.Parse("two.toml", []byte(twoImages))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(x64)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Stacks) != 3 {
		t.Fatalf("%d stacks, want 3 (a thread's stack equal to its process's is the same stack): %+v", len(r.Stacks), r.Stacks)
	}
	name := func(w workload.Weighted) []string {
		var out []string
		for _, f := range r.Frames(w) {
			out = append(out, r.Ref(f))
		}
		return out
	}
	t1, t2 := r.Threads[0].Mix, r.Threads[1].Mix
	if len(t1) != 3 || t1[0].Weight != 3.0/8 || t1[1].Weight != 1.0/8 || t1[2].Weight != 0.5 {
		t.Errorf("thread 1 mix %+v: want the process's stacks at 3/8, 1/8, 1/2", t1)
	}
	want := [][]string{{"memcpy", "app!helper", "main"}, {"memcpy", "libc.so!helper", "main"}, {"main"}}
	for i, w := range t1 {
		if got := name(w); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("stack %d = %v, want %v", i, got, want[i])
		}
		if r.Funcs[w.Func].Name != want[i][0] {
			t.Errorf("stack %d runs %q, want its leaf %q", i, r.Funcs[w.Func].Name, want[i][0])
		}
	}
	if len(t2) != 1 || t2[0].Stack != t1[0].Stack || t2[0].Weight != 1 {
		t.Errorf("thread 2 mix %+v: want its own stack, shared with the process's first", t2)
	}
	// a function drawn on its own has its caller chain as its stack
	if got := r.Frames(workload.Weighted{Func: t1[2].Func, Stack: workload.NoStack}); len(got) != 1 {
		t.Errorf("frames of a stackless function: %v", got)
	}
}

func TestStackErrors(t *testing.T) {
	base := func(stacks string) string {
		return strings.Replace(twoImages, "[[process.thread]]\n[[process.thread]]", stacks+"\n[[process.thread]]\n[[process.thread]]", 1)
	}
	for _, tc := range []struct{ name, toml, want string }{
		{"ambiguous frame", base(`[[process.stack]]
frames = ["helper"]
weight = 1`), `process[1].stack[4].frames[1]: "helper" is defined in several images: name one of "app!helper", "libc.so!helper"`},
		{"unknown frame", base(`[[process.stack]]
frames = ["memcpy", "nosuch"]
weight = 1`), `process[1].stack[4].frames[2]: no function named "nosuch" in the workload`},
		{"no frames", base(`[[process.stack]]
weight = 1`), `process[1].stack[4].frames: must list at least one function`},
		{"negative weight", base(`[[process.stack]]
frames = ["main"]
weight = -1`), `process[1].stack[4].weight: must be >= 0, got -1`},
		{"run and stack", strings.Replace(twoImages, "[[process.thread]]\n[[process.thread.stack]]", "[[process.thread]]\nrun = [{ function = \"main\" }]\n[[process.thread.stack]]", 1),
			`process[1].thread[2]: gives both run and stack`},
		{"ambiguous run", twoImages[:strings.Index(twoImages, "[[process.thread.stack]]")] + "run = [{ function = \"helper\" }]\n",
			`process[1].thread[2].run[1].function: "helper" is defined in several images`},
		{"twice in one image", strings.Replace(twoImages, `name = "memcpy"`, `name = "helper"`, 1), `image[2].function[2].name: function "helper" is defined twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := workload.Parse("two.toml", []byte(tc.toml))
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

// A process's stacks shared by several threads are checked once: their
// errors are said once, not once per thread.
func TestProcessStackErrorsOnce(t *testing.T) {
	s, err := workload.Parse("two.toml", []byte(strings.Replace(twoImages, `frames = ["main"]`, `frames = ["mian"]`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Resolve(x64)
	if err == nil || strings.Count(err.Error(), `"mian"`) != 1 {
		t.Errorf("error %v: want the unknown frame once", err)
	}
}

// A name with a "!" of its own (C++'s operator!=) is found by its name
// and by image!name: references are not split at the "!".
func TestReferencesKeepBangsInNames(t *testing.T) {
	s := workload.Spec{
		Images: []workload.Image{{Name: "app", Base: 0x400000, Functions: []workload.Function{
			{Name: "operator!=", Offset: 0x100, Size: 0x40},
			{Name: "main", Offset: 0x200, Size: 0x40},
		}}},
		Processes: []workload.Process{{Name: "app", Stacks: []workload.Stack{
			{Frames: []string{"operator!=", "main"}, Weight: 1},
			{Frames: []string{"app!operator!=", "app!main"}, Weight: 1},
		}}},
	}
	r, err := s.Resolve(x64)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Stacks) != 1 || r.Funcs[r.Stacks[0].Frames[0]].Name != "operator!=" {
		t.Errorf("stacks %+v: want one, operator!= <- main, named both ways", r.Stacks)
	}
}

// ImageRefs gives each image function the reference Resolve accepts: the
// name, qualified only where several images define it.
func TestImageRefs(t *testing.T) {
	s, err := workload.Parse("two.toml", []byte(twoImages))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	s.ImageRefs(func(ref string, f *workload.Function) { got = append(got, ref) })
	want := []string{"main", "app!helper", "libc.so!helper", "memcpy"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("refs %v, want %v", got, want)
	}
}
