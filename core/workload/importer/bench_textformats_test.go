package importer_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// callgrindBig is a callgrind file of funcs functions, each calling up
// to four others of higher number (a DAG, as most programs' call graphs
// are nearly) with instruction addresses: the scale of BenchmarkImportBig
// for the context reconstruction.
func callgrindBig(funcs int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 0xca11))
	var b strings.Builder
	b.WriteString("# callgrind format\nversion: 1\ncmd: ./big\npositions: instr line\nevents: Ir\n\nob=(1) /usr/bin/big\nfl=(1) big.c\n")
	for i := range funcs {
		fmt.Fprintf(&b, "fn=(%d) f%d\n0x%x 1 %d\n", i+1, i, 0x1000+i*0x100, 1+rng.IntN(1000))
		for k := rng.IntN(5); k > 0 && i+1 < funcs; k-- {
			callee := i + 1 + rng.IntN(min(50, funcs-i-1))
			fmt.Fprintf(&b, "+%d * %d\ncfn=(%d) f%d\ncalls=%d 0x%x 1\n* * %d\n", 4+rng.IntN(8), 1+rng.IntN(9), callee+1, callee, 1+rng.IntN(100), 0x1000+callee*0x100, 1+rng.IntN(100000))
		}
	}
	return b.String()
}

// dtraceBig is a DTrace aggregation of entries stacks over funcs
// functions in four modules.
func dtraceBig(funcs, entries int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 0xd7))
	var b strings.Builder
	for range entries {
		b.WriteString("\n")
		for d := 1 + rng.IntN(16); d > 0; d-- {
			f := rng.IntN(funcs)
			fmt.Fprintf(&b, "              mod%d`fn_%d+0x%x\n", f%4, f, rng.IntN(0x400))
		}
		fmt.Fprintf(&b, " %16d\n", 1+rng.IntN(1000))
	}
	return b.String()
}

// instrumentsBig is a deep copy of a call tree of rows rows.
func instrumentsBig(rows int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 0x1a5))
	var b strings.Builder
	b.WriteString("Weight\tSelf Weight\t\tSymbol Name\n")
	depth := 0
	for i := range rows {
		fmt.Fprintf(&b, "1.00 s  1.0%%\t%d.00 ms\t \t%sfn_%d()\n", rng.IntN(100), strings.Repeat(" ", depth), i%5000)
		depth = max(0, depth+1-rng.IntN(3))
	}
	return b.String()
}

// BenchmarkImportCallgrindGzip imports the real callgrind file of gzip.
func BenchmarkImportCallgrindGzip(b *testing.B) {
	data := readTestdata(b, "callgrind_gzip.out.gz")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := importer.Import("gzip", data, importer.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportCallgrindBig imports a 5,000-function callgrind file:
// the calling contexts are rebuilt for each.
func BenchmarkImportCallgrindBig(b *testing.B) {
	data := []byte(callgrindBig(bigFuncs, 27))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := importer.Import("big", data, importer.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportDTraceBig imports 50,000 DTrace entries.
func BenchmarkImportDTraceBig(b *testing.B) {
	data := []byte(dtraceBig(bigFuncs, bigStacks, 27))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := importer.Import("big", data, importer.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportInstrumentsBig imports a 50,000-row deep copy.
func BenchmarkImportInstrumentsBig(b *testing.B) {
	data := []byte(instrumentsBig(bigStacks, 27))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := importer.Import("big", data, importer.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTextFormatsBig imports the benchmarks' inputs, at a fifth of
// their scale, and checks the invariants. Skipped in -short runs.
func TestTextFormatsBig(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test")
	}
	t.Parallel()
	for name, text := range map[string]string{
		"callgrind":   callgrindBig(bigFuncs/5, 27),
		"dtrace":      dtraceBig(bigFuncs/5, bigStacks/5, 27),
		"instruments": instrumentsBig(bigStacks/5, 27),
	} {
		im, err := importer.Import(name, []byte(text), importer.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		importtest.CheckInvariants(t, im)
		if string(im.Format) != name {
			t.Errorf("%s detected as %s", name, im.Format)
		}
	}
}
