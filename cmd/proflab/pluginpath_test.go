package main

// Honest plugin paths (issue 20, item 14): with PROFLAB_PLUGIN_PATH=. and
// another program of a plugin's name earlier in PATH, proflab records the
// plugin it found in the working directory, by its absolute path and
// sha256, and runs that one; a plugin folder others can write is warned
// of once.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proflab/proflab/core/halhost"
)

func TestPluginRecordedIsThePluginRun(t *testing.T) {
	names := []string{"proflab-hal-apic", "proflab-hal-pmu", "proflab-hal-pebs"}
	var from string
	for _, d := range filepath.SplitList(os.Getenv(halhost.EnvPluginPath)) {
		if _, err := os.Stat(filepath.Join(d, names[0])); err == nil {
			from = d
			break
		}
	}
	if from == "" {
		t.Fatalf("no shipped plugins in %s=%q (TestMain sets it)", halhost.EnvPluginPath, os.Getenv(halhost.EnvPluginPath))
	}
	wd, impostors := t.TempDir(), t.TempDir()
	marker := filepath.Join(impostors, "started")
	for _, n := range names {
		src, err := filepath.Abs(filepath.Join(from, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(src, filepath.Join(wd, n)); err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\necho " + n + " >> " + marker + "\nexit 7\n"
		if err := os.WriteFile(filepath.Join(impostors, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(wd, "ok.lua"), []byte("print(\"ok\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(wd, 0o777); err != nil { // others may write the plugins' folder: a warning
		t.Fatal(err)
	}
	env := []string{halhost.EnvPluginPath + "=.", "PATH=" + impostors + string(os.PathListSeparator) + os.Getenv("PATH")}
	code, out, _ := runProflabEnv(t, wd, 60*time.Second, env, "run", "ok.lua", "--out", "out")
	if code != 0 {
		t.Fatalf("proflab run: exit %d, want 0; output:\n%s", code, out)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("proflab started the impostors in PATH, not the plugins it found in the working directory: %s", b)
	}
	b, err := os.ReadFile(filepath.Join(wd, "out", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Plugins []halhost.Plugin `json:"plugins"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Plugins) != len(names) {
		t.Fatalf("result.json records %d plugins, want %d: %s", len(res.Plugins), len(names), b)
	}
	for _, p := range res.Plugins {
		want := filepath.Join(wd, "proflab-hal-"+p.HAL)
		if p.Path != want {
			t.Errorf("hal %s: result.json records %q, want the absolute %q", p.HAL, p.Path, want)
		}
		exe, err := os.ReadFile(want)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(exe); p.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("hal %s: result.json's sha256 %s is not that of %s", p.HAL, p.SHA256, want)
		}
		if p.Name != p.HAL {
			t.Errorf("hal %s: the plugin that ran describes itself as %q", p.HAL, p.Name)
		}
	}
	warning := "the folder " + wd + ", which holds HAL plugin"
	if n := strings.Count(out, warning); n != 1 {
		t.Errorf("%d warnings that others can write %s, want 1; output:\n%s", n, wd, out)
	}
}
