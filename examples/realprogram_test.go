package examples_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// examples/real-program: a real Go program's own CPU profile, imported as
// it is read, profiled by the timer, a counter and PEBS on Windows 7 and
// 10: five profiles (no PEBS on 6.1, and a line that says why), each
// with its samples, its distance from the truth, the distance sampling
// error alone gives, the p-value and a verdict that agrees with it
// (beyond sampling error at p < 0.001), as the example's README shows.
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
		if len(f) < 10 || (f[0] != "6.1" && f[0] != "10.0") {
			continue
		}
		rows++
		samples, _ := strconv.Atoi(f[3])
		_, errTV := strconv.ParseFloat(f[4], 64)
		expected, errE := strconv.ParseFloat(f[5], 64)
		// the p-value as S.p_text prints it: "p = 0.31", a Monte Carlo
		// estimate with its interval "p ≈ 0.50 [0.27, 0.73]", or a bound
		// "p < 0.0004"
		p, errP := strconv.ParseFloat(f[8], 64)
		rest := f[9:]
		if len(rest) > 1 && strings.HasPrefix(rest[0], "[") && strings.HasSuffix(rest[1], "]") {
			rest = rest[2:]
		}
		verdict := strings.Join(rest, " ")
		if op := f[7]; op != "=" && op != "≈" && op != "<" && op != "≤" {
			errP = fmt.Errorf("p-value relation %q", op)
		}
		if samples < 100 || errTV != nil || errE != nil || expected <= 0 || f[6] != "p" || errP != nil ||
			(verdict != "within sampling error" && verdict != "beyond sampling error") ||
			(p < 0.001) != (verdict == "beyond sampling error") {
			t.Errorf("row %q: want samples, a distance, its expectation, a p-value and the verdict it gives", line)
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
	// the run folder compares the profiles with the source, and so does
	// proflab compare, as the README shows
	dir := filepath.Join(t.TempDir(), "cmp")
	if out, err := exec.Command(proflab, "run", "real-program/compare.lua", "--out", dir).CombinedOutput(); err != nil {
		t.Fatalf("proflab run real-program/compare.lua --out: %v\n%s", err, out)
	}
	text, err := os.ReadFile(filepath.Join(dir, "comparison.txt"))
	if err != nil || strings.Count(string(text), "  verdict: ") != 5 {
		t.Errorf("comparison.txt: %v\n%s", err, text)
	}
	out, err = exec.Command(proflab, "compare", "real-program/prog.pb.gz", dir, "--profile", "m3", "--rows", "10").Output()
	if err != nil || !strings.Contains(string(out), "against profile-m3-pid12-h4-ProfileTime.pb.gz (ProfileTime)") ||
		!strings.Contains(string(out), "test: goodness of fit: the run replayed this source") ||
		!strings.Contains(string(out), "verdict: the lab agrees with the source within the lab's sampling error") {
		t.Errorf("proflab compare real-program/prog.pb.gz: %v\n%s", err, out)
	}
	out, err = exec.Command(proflab, "run", "real-program/interval.lua", "--set", "interval=2441").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Errorf("proflab run real-program/interval.lua: %v\n%s", err, out)
	}
}
