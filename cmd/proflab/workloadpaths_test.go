package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 29 case 10 and issue 28 §3: a scenario reads workload files only
// from its folder and the folders allowed by --workload-dir or [run]
// workload_dirs (relative to the configuration file); a file outside is
// refused unread and a missing one is bad input (exit 2, which was 1).
func TestWorkloadPathsFromTheCommandLine(t *testing.T) {
	root := t.TempDir()
	workload := "[[image]]\nname = \"a.exe\"\nbase = 0x400000\n[[image.function]]\nname = \"f\"\noffset = 0x1000\nsize = 0x100\nweight = 1\n[[process]]\nname = \"app\"\n[[process.thread]]\n"
	writeScenario(t, root, "data/w.toml", workload)
	writeScenario(t, root, "secret.toml", "password = \"hunter2\"\n")
	writeScenario(t, root, "lab.toml", "[run]\nworkload_dirs = [\"data\"]\n")
	scen := func(name, path string) string {
		return writeScenario(t, root, "scen/"+name, `local lab = require "proflab"
local m = lab.machine{ hal = {} }
m:process{ name = "app" }
local ok, err = pcall(m.run, m, { duration_us = 1000, workload = "`+path+`" })
print(ok, err)`)
	}
	data := scen("data.lua", "w.toml")
	up := scen("up.lua", "../data/w.toml")
	secret := scen("secret.lua", "../secret.toml")
	abs := scen("abs.lua", filepath.Join(root, "secret.toml"))
	missing := scen("missing.lua", "nowhere.toml")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", data}, ExitUsage, `workload "w.toml": file does not exist (looked for ` + filepath.Join(root, "scen", "w.toml") + ")"},
		{[]string{"run", data, "--workload-dir", filepath.Join(root, "data")}, ExitOK, "true"},
		{[]string{"run", up, "--workload-dir", filepath.Join(root, "data")}, ExitOK, "true"},
		{[]string{"run", data, "--config", filepath.Join(root, "lab.toml")}, ExitOK, "true"},
		{[]string{"run", up}, ExitUsage, "outside the folders a scenario may read workloads from"},
		{[]string{"run", secret, "--workload-dir", filepath.Join(root, "data")}, ExitUsage, "outside the folders"},
		{[]string{"run", abs}, ExitUsage, "outside the folders"},
		{[]string{"run", missing}, ExitUsage, `workload "nowhere.toml": file does not exist`},
		{[]string{"run", data, "--workload-dir", filepath.Join(root, "nodir")}, ExitUsage, "--workload-dir " + filepath.Join(root, "nodir")},
		{[]string{"run", data, "--workload-dir", filepath.Join(root, "secret.toml")}, ExitUsage, "not a folder"},
	} {
		code, out, errOut := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("proflab %s: exit %d, want %d with %q:\n%s%s", strings.Join(tc.args, " "), code, tc.code, tc.want, out, errOut)
		}
		if strings.Contains(out+errOut, "hunter2") {
			t.Errorf("proflab %s: the output shows the secret:\n%s%s", strings.Join(tc.args, " "), out, errOut)
		}
	}
}

// A sweep's runs read the workloads of its configuration's folders; a
// run whose workload is outside fails, the others go on.
func TestSweepWorkloadPaths(t *testing.T) {
	root := t.TempDir()
	workload := "[[image]]\nname = \"a.exe\"\nbase = 0x400000\n[[image.function]]\nname = \"f\"\noffset = 0x1000\nsize = 0x100\nweight = 1\n[[process]]\nname = \"app\"\n[[process.thread]]\n"
	writeScenario(t, root, "data/w.toml", workload)
	writeScenario(t, root, "sweep/lab.toml", "[run]\nworkload_dirs = [\"../data\"]\n[hal.apic]\ntransport = \"inproc\"\n[hal.pmu]\ntransport = \"inproc\"\n[hal.pebs]\ntransport = \"inproc\"\n")
	writeScenario(t, root, "sweep/s.lua", `local lab = require "proflab"
local m = lab.machine{}
m:process{ name = "app" }
local r = m:run{ duration_us = 1000, workload = lab.params.w }
lab.record{ ran = 1 }`)
	file := writeScenario(t, root, "sweep/s.toml", "scenario = \"s.lua\"\nconfig_file = \"lab.toml\"\n[grid]\nw = [\"w.toml\", \"/etc/passwd\"]\n")
	out := filepath.Join(root, "out")
	_, stdout, stderr := runCLI("sweep", file, "--out", out)
	if !strings.Contains(stdout, "2 runs: 1 ok, 0 failed, 1 error") {
		t.Fatalf("sweep:\n%s\n%s", stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if err != nil || !strings.Contains(string(b), `workload \"/etc/passwd\": outside the folders`) || strings.Contains(string(b), "root:") {
		t.Errorf("results.jsonl: %v\n%s", err, b)
	}
}
