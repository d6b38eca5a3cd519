package sweep_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep"
	"github.com/proflab/proflab/core/sweep/results"
)

// greedyScenario grows a table well past its budget when lab.params.role
// is "greedy", and otherwise computes for a while with little memory.
const greedyScenario = `local lab = require "proflab"
if lab.params.role == "greedy" then
  local t = {}
  for i = 1, 4000 do t[i] = string.rep("x", 100000) .. i end
else
  local x = 0
  for i = 1, 3e6 do x = x + i % 7 end
end
lab.record{ done = 1 }
`

// The memory watchdog judges the process's one heap: with -j 2 a greedy
// run ended every run in progress, an innocent one beside it included.
// A run that failed for memory beside others runs again alone, so every
// run's status and message are those of -j 1.
func TestMemoryFailuresDoNotDependOnJobs(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("allocates a few hundred MB (17 s under the race detector, which `go test` without -race covers)")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.lua"), []byte(greedyScenario), 0o644)
	inproc, _ := os.ReadFile(filepath.Join("testdata", "inproc.toml"))
	os.WriteFile(filepath.Join(dir, "lab.toml"), append(inproc, "[run]\nmemory = \"64MiB\"\n"...), 0o644)
	path := filepath.Join(dir, "s.toml")
	os.WriteFile(path, []byte("scenario = \"s.lua\"\nconfig_file = \"lab.toml\"\n[grid]\nrole = [\"greedy\", \"innocent\"]\n"), 0o644)
	p := plan(t, path)
	outcome := func(jobs int) string {
		out := filepath.Join(dir, "out", string(rune('0'+jobs)))
		execute(p, out, sweep.Options{Jobs: jobs})
		lines, _, err := results.Read(filepath.Join(out, results.FileName))
		if err != nil || len(lines) != 2 {
			t.Fatalf("-j %d: %d lines, %v", jobs, len(lines), err)
		}
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l.Params["role"].(string) + " " + string(l.Status))
			if l.Error != nil {
				b.WriteString(" " + l.Error.Kind + ": " + l.Error.Message)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	one, two := outcome(1), outcome(2)
	if !strings.Contains(one, "greedy error memory") || !strings.Contains(one, "innocent ok") {
		t.Fatalf("-j 1:\n%s", one)
	}
	if strip := func(s string) string { return strings.Split(s, "(--memory)")[0] }; strip(one) != strip(two) || strings.Contains(two, "side by side") {
		t.Errorf("-j 2 differs from -j 1:\n%s\nagainst\n%s", two, one)
	}
}
