package luart

import (
	"bytes"
	"os"
	"testing"

	"github.com/proflab/proflab/core/luart/internal/constgen"
	"github.com/proflab/proflab/kernel/nt"
)

func TestGeneratedConstantsAreUpToDate(t *testing.T) {
	t.Parallel()
	want, err := constgen.Generate("../../kernel/nt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("constants_nt_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("constants_nt_gen.go is out of date with kernel/nt: run `go generate ./core/luart`")
	}
}

func TestConstantsCoverTheNTTables(t *testing.T) {
	c := constants() // panics on a name with two values
	for _, s := range nt.NamedSources() {
		if v, ok := c[s.Name()]; !ok || v != uint64(s) {
			t.Errorf("%s = %v, %v", s.Name(), v, ok)
		}
	}
	for name, st := range nt.Statuses() {
		if v, ok := c[name]; !ok || v != uint64(st) {
			t.Errorf("%s = %v, %v", name, v, ok)
		}
	}
	for name, code := range nt.Win32Errors() {
		if v, ok := c[name]; !ok || v != uint64(code) {
			t.Errorf("%s = %v, %v", name, v, ok)
		}
	}
	for name, v := range c {
		if v >= 1<<53 { // a Lua number holds integers exactly below 2^53
			t.Errorf("%s = %#x is not exact as a Lua number", name, v)
		}
	}
}
