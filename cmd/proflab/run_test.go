package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeScenario(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := execute(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRunCommand(t *testing.T) {
	dir := t.TempDir()
	pass := writeScenario(t, dir, "pass.lua", `local lab = require "proflab"
print("n is", lab.params.n, type(lab.params.n), lab.params.name, lab.seed)
lab.check(true, "fine")
lab.record{ n = lab.params.n }`)
	fail := writeScenario(t, dir, "fail.lua", `local lab = require "proflab"
lab.check(false, "broken")`)
	raise := writeScenario(t, dir, "raise.lua", "error('bad')")
	loop := writeScenario(t, dir, "loop.lua", "while true do end")

	code, out, _ := runCLI("run", pass, "--set", "n=8", "--set", "name=apic", "--seed", "7")
	if code != ExitOK || !strings.Contains(out, "n is\t8\tnumber\tapic\t7") || !strings.Contains(out, "PASS ") {
		t.Errorf("pass: code %d, out:\n%s", code, out)
	}

	// --config-set overrides the configuration; --set stays a parameter
	cpus := writeScenario(t, dir, "cpus.lua", `local lab = require "proflab"
lab.check(lab.machine{ hal = {} }:cpu_count() == 2, "cpus from --config-set")
lab.check(lab.params["machine.cpus"] == nil, "not a parameter")`)
	if code, out, _ := runCLI("run", cpus, "--config-set", "machine.cpus=2"); code != ExitOK {
		t.Errorf("--config-set: code %d, out:\n%s", code, out)
	}
	if code, _, errOut := runCLI("run", cpus, "--config-set", "machine.cpuz=2"); code != ExitUsage || !strings.Contains(errOut, "machine.cpuz") {
		t.Errorf("--config-set with an unknown key: code %d, stderr:\n%s", code, errOut)
	}

	code, out, _ = runCLI("run", fail)
	if code != ExitFailed || !strings.Contains(out, "fail.lua:2: broken") || !strings.Contains(out, "(1 check, 1 failed)") {
		t.Errorf("fail: code %d, out:\n%s", code, out)
	}

	code, out, _ = runCLI("run", raise)
	if code != ExitFailed || !strings.Contains(out, "raise.lua:1: bad") || !strings.Contains(out, "stack traceback:") {
		t.Errorf("raise: code %d, out:\n%s", code, out)
	}

	code, out, _ = runCLI("run", loop, "--timeout", "100ms")
	if code != ExitFailed || !strings.Contains(out, "scenario exceeded its time budget of 100ms (--timeout)") {
		t.Errorf("loop: code %d, out:\n%s", code, out)
	}

	code, out, _ = runCLI("run", filepath.Join(dir, "missing.lua"))
	if code != ExitUsage || !strings.Contains(out, "missing.lua") {
		t.Errorf("missing: code %d, out:\n%s", code, out)
	}

	code, _, errOut := runCLI("run", pass, "--set", "novalue")
	if code != ExitUsage || !strings.Contains(errOut, "key=value") {
		t.Errorf("bad --set: code %d, stderr %s", code, errOut)
	}

	code, _, errOut = runCLI("run", pass, "--config", filepath.Join(dir, "nope.toml"))
	if code != ExitUsage || !strings.Contains(errOut, "--config") {
		t.Errorf("bad --config: code %d, stderr %s", code, errOut)
	}

	outDir := filepath.Join(dir, "out")
	if code, out, _ = runCLI("run", pass, "--set", "n=3", "--out", outDir); code != ExitOK {
		t.Fatalf("--out: code %d\n%s", code, out)
	}
	b, err := os.ReadFile(filepath.Join(outDir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Status  string         `json:"status"`
		Seed    uint64         `json:"seed"`
		Params  map[string]any `json:"params"`
		Records map[string]any `json:"records"`
		Timings map[string]any `json:"timings"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != "passed" || res.Seed != 1 || res.Params["n"] != 3.0 || res.Records["n"] != 3.0 || res.Timings["wall_seconds"] == nil {
		t.Errorf("result.json = %s", b)
	}
}

func TestTestCommand(t *testing.T) {
	dir := t.TempDir()
	writeScenario(t, dir, "a.lua", `local lab = require "proflab" lab.check(require("_h").ok, "helper")`)
	writeScenario(t, dir, "_h.lua", `return { ok = true }`)
	writeScenario(t, dir, "sub/b.lua", `local lab = require "proflab" lab.check(false, "b fails") lab.check(true)`)
	writeScenario(t, dir, "sub/c.lua", `error("c raises")`)

	code, out, _ := runCLI("test", dir, "-j", "2")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != ExitFailed || lines[len(lines)-1] != "1 passed, 2 failed" {
		t.Errorf("code %d, out:\n%s", code, out)
	}
	for _, want := range []string{"PASS " + filepath.Join(dir, "a.lua") + " (1 check)", "FAIL " + filepath.Join(dir, "sub", "b.lua") + " (2 checks, 1 failed)", "b.lua:1: b fails", "c raises"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = runCLI("test", filepath.Join(dir, "a.lua"))
	if code != ExitOK || !strings.HasSuffix(out, "1 passed, 0 failed\n") {
		t.Errorf("code %d, out:\n%s", code, out)
	}

	code, _, errOut := runCLI("test", filepath.Join(dir, "nothing"))
	if code != ExitUsage || errOut == "" {
		t.Errorf("missing path: code %d, stderr %q", code, errOut)
	}
}

// A --set parameter the scenario never reads changed nothing: proflab run
// says so on standard error and in result.json's warnings; a parameter it
// reads gets no warning.
func TestRunWarnsOfAnUnreadParameter(t *testing.T) {
	dir := t.TempDir()
	sc := writeScenario(t, dir, "p.lua", `local lab = require "proflab"
lab.check((lab.params.interval or 10000) > 0, "an interval")
`)
	out := filepath.Join(dir, "out")
	code, _, errOut := runCLI("run", sc, "--set", "intervall=1221", "--set", "interval=5000", "--out", out)
	if code != ExitOK {
		t.Fatalf("code %d: %s", code, errOut)
	}
	want := "--set intervall: the scenario never read lab.params.intervall, so it changed nothing"
	if !strings.Contains(errOut, "warning: "+want) || strings.Contains(errOut, "--set interval:") {
		t.Errorf("stderr %q: want one warning, for intervall", errOut)
	}
	res, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil || !strings.Contains(string(res), want) {
		t.Errorf("result.json lacks the warning (err %v)", err)
	}
}
