package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 28 §3: a workload imported for x64 (the default) and run on an x86
// machine gave an error per function above 4 GB — 47 to 140 lines that
// never said to import it for x86. It is one line that says so.
func TestX64ImportOnX86SaysToReimport(t *testing.T) {
	dir := t.TempDir()
	var perf strings.Builder
	for i := range 40 {
		fmt.Fprintf(&perf, "prog 123 [000] %d.000: 1000 cycles:\n\tffffffff810%02x100 ksym%d ([kernel.kallsyms])\n\t7f0000%02x1000 lib%d (/usr/lib/libx.so)\n\t401000 main (/usr/bin/prog)\n\n", i, i, i, i, i)
	}
	writeScenario(t, dir, "perf.txt", perf.String())
	if code, out, errOut := runCLI("workload", "import", filepath.Join(dir, "perf.txt"), "-o", filepath.Join(dir, "prog.toml")); code != ExitOK {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	s := writeScenario(t, dir, "s.lua", `local lab = require "proflab"
local m = lab.machine{ hal = {}, version = "6.1", arch = "x86" }
m:run{ duration_us = 1000, workload = "prog.toml" }`)
	code, out, _ := runCLI("run", s)
	msg, _, _ := strings.Cut(out, "stack traceback:")
	if code != ExitFailed || strings.Count(msg, "\n") != 1 {
		t.Errorf("exit %d, want %d and a one-line message:\n%s", code, ExitFailed, out)
	}
	for _, w := range []string{"s.lua:3: m:run: image[", "more functions lie above the x86 machine's 4 GB address space",
		"it was imported for x64: re-import its profile with `proflab workload import --arch x86`, or make the machine x64"} {
		if !strings.Contains(msg, w) {
			t.Errorf("the message lacks %q:\n%s", w, msg)
		}
	}
}
