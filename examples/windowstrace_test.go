package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// examples/windows-trace: PerfView's trace of Test.x86.exe, imported with
// `proflab workload import … --process Test.x86.exe` (exit status 0) and
// replayed by replay.lua: clr.dll, the JIT-compiled methods and
// GetDatePart take the cycles the trace's samples gave them, and the
// timer's profile of clr.dll counts samples at the trace's addresses.
func TestWindowsTraceExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds proflab")
	}
	dir := t.TempDir()
	proflab := proflabBinary(t, dir)
	toml := filepath.Join(dir, "test-x86.toml")
	trace := filepath.Join("..", "core", "etl", "testdata", "perfview-net.4.5.2.x86.etl.zip")
	if out, err := exec.Command(proflab, "workload", "import", trace, "--process", "Test.x86.exe", "-o", toml).CombinedOutput(); err != nil {
		t.Fatalf("proflab workload import: %v\n%s", err, out)
	}
	src, err := os.ReadFile(filepath.Join("windows-trace", "replay.lua"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "replay.lua"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(proflab, "run", filepath.Join(dir, "replay.lua")).CombinedOutput()
	if err != nil {
		t.Fatalf("proflab run replay.lua: %v\n%s", err, out)
	}
	share := func(re string) float64 {
		m := regexp.MustCompile(re).FindSubmatch(out)
		if m == nil {
			t.Fatalf("no %q in:\n%s", re, out)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	// the trace: clr.dll 2,289 of 4,900 samples (46.7%), the JIT's 2,502
	// (51.1%), GetDatePart 1,140 (23.3%); the workload's other functions
	// (the kernel's ISR and DPC time of the lab) take a little
	for _, c := range []struct {
		re     string
		lo, hi float64
	}{
		{`clr.dll at 0x[0-9A-F]+: +([0-9.]+)%`, 44, 48},
		{`\[jit\] +([0-9.]+)%`, 49, 53},
		{`GetDatePart: +([0-9.]+)%`, 21.5, 25},
		{`profile of clr.dll: ([0-9]+) samples`, 50, 1e9},
	} {
		if v := share(c.re); v < c.lo || v > c.hi {
			t.Errorf("%s: %g, want %g…%g\n%s", c.re, v, c.lo, c.hi, out)
		}
	}
}
