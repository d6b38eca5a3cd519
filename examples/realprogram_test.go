package examples_test

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// examples/real-program: a real Go program's own CPU profile, imported as
// it is read, profiled by the timer, a counter and PEBS on Windows 7 and
// 10: five profiles (no PEBS on 6.1, and a line that says why), each
// within sampling error of the truth, as the example's README shows.
func TestRealProgramExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds proflab")
	}
	proflab := proflabBinary(t, t.TempDir())
	out, err := exec.Command(proflab, "run", "real-program/compare.lua").CombinedOutput()
	if err != nil {
		t.Fatalf("proflab run real-program/compare.lua: %v\n%s", err, out)
	}
	var rows int
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 6 || (f[0] != "6.1" && f[0] != "10.0") {
			continue
		}
		rows++
		samples, _ := strconv.Atoi(f[3])
		tv, _ := strconv.ParseFloat(f[4], 64)
		bound, _ := strconv.ParseFloat(f[5], 64)
		if samples < 100 || tv > bound {
			t.Errorf("row %q: want samples and a distance within the noise bound", line)
		}
		if f[0] == "6.1" && f[2] == "pebs" {
			t.Errorf("PEBS on 6.1: %q", line)
		}
	}
	if rows != 5 {
		t.Errorf("%d rows, want 5:\n%s", rows, out)
	}
	if !strings.Contains(string(out), "no PEBS on 6.1: SystemProcessorProfileControlArea, which PEBS needs, arrives in 6.2") {
		t.Errorf("the missing PEBS row is not explained:\n%s", out)
	}
	out, err = exec.Command(proflab, "run", "real-program/interval.lua", "--set", "interval=2441").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Errorf("proflab run real-program/interval.lua: %v\n%s", err, out)
	}
}
