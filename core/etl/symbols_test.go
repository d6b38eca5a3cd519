package etl_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/etl"
)

func TestReadSymbols(t *testing.T) {
	in := "\uFEFF# a comment\n\nTest.x86.exe 0x1a40 0x3c Program.Main\nntoskrnl.exe\t0x2000\t0x10\tKiIdleLoop with spaces\r\n"
	got, err := etl.ReadSymbols(strings.NewReader(in), "trace.symbols")
	if err != nil {
		t.Fatal(err)
	}
	want := []etl.Symbol{
		{Image: "Test.x86.exe", RVA: 0x1a40, Size: 0x3c, Name: "Program.Main"},
		{Image: "ntoskrnl.exe", RVA: 0x2000, Size: 0x10, Name: "KiIdleLoop with spaces"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestReadSymbolsErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a.dll 0x10 0x4\n", "f.sym:1: want four fields"},
		{"# c\na.dll 10 0x4 f\n", "f.sym:2: RVA \"10\""},
		{"a.dll 0x10 0xzz f\n", "f.sym:1: SIZE \"0xzz\""},
	} {
		_, err := etl.ReadSymbols(strings.NewReader(c.in), "f.sym")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestWriteSymbolsReadsBack(t *testing.T) {
	syms := []etl.Symbol{
		{Image: "b.exe", RVA: 0x20, Size: 1, Name: "B::f(int, char)"},
		{Image: "a.dll", RVA: 0x30, Size: 2, Name: "g"},
		{Image: "a.dll", RVA: 0x10, Size: 3, Name: "f"},
	}
	var buf bytes.Buffer
	if err := etl.WriteSymbols(&buf, syms); err != nil {
		t.Fatal(err)
	}
	got, err := etl.ReadSymbols(&buf, "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []etl.Symbol{syms[2], syms[1], syms[0]}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if err := etl.WriteSymbols(&buf, []etl.Symbol{{Image: "a b.dll", Name: "f"}}); err == nil {
		t.Error("an image name with a space was written")
	}
}
