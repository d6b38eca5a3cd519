package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run --out through a symbolic link writes the outputs where the link
// points, a dangling link included, and leaves the link a link (the
// finished folder used to be renamed over the link).
func TestRunOutThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	scen := writeScenario(t, dir, "s.lua", `local lab = require "proflab"
lab.record{ x = 1 }`)
	for _, name := range []string{"existing", "dangling"} {
		target := filepath.Join(dir, "target-"+name)
		if name == "existing" {
			os.MkdirAll(target, 0o755)
		}
		link := filepath.Join(dir, "link-"+name)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if code, stdout, stderr := runCLI("run", scen, "--out", link); code != ExitOK {
			t.Fatalf("%s link: exit %d\n%s%s", name, code, stdout, stderr)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s link: replaced by a folder (%v)", name, err)
		}
		if _, err := os.Stat(filepath.Join(target, "result.json")); err != nil {
			t.Errorf("%s link: no result.json where it points: %v", name, err)
		}
	}
}

// A HAL setting out of range is reported at its own line of the
// configuration file, with one "configure:" at most.
func TestSettingOutOfRangeAtItsLine(t *testing.T) {
	dir := t.TempDir()
	scen := writeScenario(t, dir, "s.lua", `local lab = require "proflab"
lab.record{ x = 1 }`)
	cfg := filepath.Join(dir, "cfg.toml")
	os.WriteFile(cfg, []byte("[hal.pmu]\ntransport = \"inproc\"\n\n[hal.pmu.settings]\nevery_version = true\ncounters = 99\n"), 0o644)
	code, stdout, stderr := runCLI("run", scen, "--config", cfg)
	if code != ExitUsage || !strings.Contains(stderr, "cfg.toml:6: hal.pmu.settings.counters: setting counters = 99") || strings.Contains(stderr, "configure: configure:") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// An error in the scenario's on_hal_call hook is the scenario's error: the
// service call raises it (exit 1, at the hook's line), not a HAL plugin
// failure (exit 3).
func TestHookErrorIsTheScenarios(t *testing.T) {
	dir := t.TempDir()
	scen := writeScenario(t, dir, "hook.lua", `local lab = require "proflab"
local m = lab.machine{ hal = { "apic" } }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
m:on_hal_call(function(c)
  error("the hook refuses " .. c.call)
end)
p:NtSetIntervalProfile(5000, lab.ProfileTime)`)
	code, stdout, stderr := runCLI("run", scen)
	out := stdout + stderr
	if code != ExitFailed || !strings.Contains(out, "hook.lua:5: the hook refuses set") || strings.Contains(out, "plugin") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// hal new prints commands that work from where the user stands: proflab
// by the path it was run as, unless that very executable is what PATH
// finds.
func TestProflabCommandWorksFromAnywhere(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	got := proflabCommand()
	self, _ := os.Executable()
	self, _ = filepath.EvalSymlinks(self)
	if got != self || !filepath.IsAbs(got) {
		t.Errorf("proflabCommand() = %q, want this executable's absolute path %q", got, self)
	}
}
