package scripts_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/scenario"
)

// runToolCheck runs the Lua check file testdata/tools/NAME with params
// and fails the test on an error or a failed check.
func runToolCheck(t *testing.T, name string, params map[string]any) scenario.Result {
	t.Helper()
	file, err := filepath.Abs(filepath.Join("testdata", "tools", name))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := scenario.Run(context.Background(), scenario.Options{File: file, Source: src, Seed: 1, Params: params, WorkloadDirs: exampleWorkloads(t)})
	if r.Error != nil {
		t.Fatal(r.Error.Detail())
	}
	for _, c := range r.Failed() {
		t.Errorf("%s: %s", c.Where, c.Message)
	}
	if len(r.Checks) < 10 {
		t.Errorf("only %d checks ran", len(r.Checks))
	}
	return r
}

func workloadPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "examples", "workloads", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func strs(s string) []any {
	var out []any
	for _, f := range strings.Fields(s) {
		out = append(out, f)
	}
	return out
}

// kernrate's printed figures are the services' answers: hits are the
// buckets of an observer's own profiles over the same modules, the
// interval NtQueryIntervalProfile's, the interrupts the run's and the
// processor performance information's; the rows' arithmetic holds; the
// zoomed functions' hits are within sampling error of the ground truth.
func TestKernrateFigures(t *testing.T) {
	cases := []struct {
		name, version, arch, workload, args, source string
		truth                                       bool
	}{
		{"6.1 x86", "6.1", "x86", "desktop-x86.toml", "-s 5 -z editor.exe -z dispdrv.sys -a", "Time", true},
		{"10.0 x64", "10.0.19041", "x64", "server.toml", "-s 5 -z server.exe -z netdrv.sys -a", "Time", true},
		{"10.0 x64 kernel only, 1221", "10.0.19041", "x64", "server.toml", "-s 2 -i 1221 -z netdrv", "Time", true},
		{"6.3 counters", "6.3", "x64", "server.toml", "-s 2 -i TotalIssues 65536 -a", "TotalIssues", false},
		{"6.3 counters, timer off", "6.3", "x64", "server.toml", "-s 1 -i Time 0 -i CacheMisses 4096 -n server", "CacheMisses", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runToolCheck(t, "kernrate_check.lua", map[string]any{
				"version": c.version, "arch": c.arch, "workload": workloadPath(t, c.workload),
				"args": strs(c.args), "source": c.source, "truth": c.truth,
			})
		})
	}
}

// wpr's and tracelog's printed intervals are NtQueryIntervalProfile's and
// the hardware's, their listing the HALs' sources; each refuses what the
// Windows tool refuses.
func TestWprAndTracelogFigures(t *testing.T) {
	for _, v := range []string{"6.3", "10.0.19041"} {
		t.Run(v, func(t *testing.T) {
			runToolCheck(t, "wpr_check.lua", map[string]any{"version": v})
		})
	}
}

// The tools are in the embedded library under tools/, and require finds
// them by their dotted names.
func TestToolsAreEmbedded(t *testing.T) {
	mustPass(t, `
for name, fn in pairs({ kernrate = "run", wpr = "run", tracelog = "run", sources = "list" }) do
  local ok, mod = pcall(require, "tools." .. name)
  lab.check(ok and type(mod[fn]) == "function", name .. ": " .. tostring(mod))
end
A.expect_error(function() require "tools.nothere" end, "tools.kernrate")
`)
}

// A tool run as a process without SeSystemProfilePrivilege fails where
// Windows refuses it, and says which call and status; where Windows lets
// it, it runs.
func TestToolsWithoutPrivilege(t *testing.T) {
	w := workloadPath(t, "server.toml")
	mustPass(t, `
local kr, wpr = require "tools.kernrate", require "tools.wpr"
local m = lab.machine{ version = "10.0.19041" }
local res = kr.run(m, { "-s", "1" }, { workload = "`+w+`", process = m:process{ name = "user" }, quiet = true })
A.expect_eq({ res.status, res.error }, { 1, "kernrate: NtSetIntervalProfile(25000, Time) failed: STATUS_PRIVILEGE_NOT_HELD" }, "10.0: the set needs the privilege")
local m7 = lab.machine{ version = "6.1", arch = "x86" }
res = kr.run(m7, { "-s", "1" }, { workload = "`+workloadPath(t, "desktop-x86.toml")+`", process = m7:process{ name = "user" }, quiet = true })
A.expect_eq({ res.status, res.kernel.hits.Time > 0 }, { 0, true }, "6.1: before 6.2 the set needs no privilege, nor a profile of kernel space")
res = wpr.run(m, { "-setprofint", "20000" }, { process = m:process{ name = "user" }, quiet = true })
A.expect_eq({ res.status, res.error }, { 1, "wpr: TraceSetInformation(TraceSampledProfileIntervalInfo, Timer, 20000) failed: ERROR_PRIVILEGE_NOT_HELD" }, "wpr's set")
`)
}
