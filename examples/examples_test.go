package examples_test

// The examples' harness: what a user does with each example, from the
// command line (the examples' own folders test their code in-process).

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/halplugins/haltest"
)

// proflabBinary is the proflab make test builds beside the plugins, or
// one built into dir.
func proflabBinary(t *testing.T, dir string) string {
	t.Helper()
	proflab := filepath.Join(os.Getenv("PROFLAB_PLUGIN_PATH"), "proflab")
	if _, err := os.Stat(proflab); os.Getenv("PROFLAB_PLUGIN_PATH") == "" || err != nil {
		if proflab, err = haltest.Build(dir, "github.com/proflab/proflab/cmd/proflab"); err != nil {
			t.Fatal(err)
		}
	}
	return proflab
}

// The custom HAL, built as a plugin, passes `proflab hal check`, shows
// in `proflab hal list` when a configuration points at it, and serves a
// scenario (examples/custom-hal/README.md).
func TestCustomHAL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds proflab and the plugin")
	}
	dir := t.TempDir()
	plugin, err := haltest.Build(dir, "github.com/proflab/proflab/examples/custom-hal")
	if err != nil {
		t.Fatal(err)
	}
	proflab := proflabBinary(t, dir)
	out, err := exec.Command(proflab, "hal", "check", plugin).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "20 passed, 0 failed") {
		t.Fatalf("proflab hal check: %v\n%s", err, out)
	}

	cfg := filepath.Join(dir, "lab.toml")
	doc := "[machine]\nhal = [\"apic\", \"skid\"]\n\n[hal.skid]\nplugin = \"" + plugin + "\"\nsettings = { skid = 5 }\n"
	if err := os.WriteFile(cfg, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(proflab, "hal", "list", "-c", cfg)
	cmd.Env = append(os.Environ(), "PROFLAB_PLUGIN_PATH="+os.Getenv("PROFLAB_PLUGIN_PATH"))
	out, err = cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && strings.Contains(string(out), "proflab-hal-") {
		t.Skipf("the shipped plugins are not built (make build): %s", out)
	}
	if err != nil || !strings.Contains(string(out), "skid (fixed-skid 1.0.0): 2 sources, 2 counters per processor") {
		t.Fatalf("proflab hal list: %v\n%s", err, out)
	}

	// and a scenario runs through it: the configured skid of 5
	// instructions moves 5/16 of a 16-instruction function's samples
	cmd = exec.Command(proflab, "run", "skid.lua", "--config", cfg, "--set", "skid=5")
	cmd.Dir = "custom-hal"
	cmd.Env = append(os.Environ(), "PROFLAB_PLUGIN_PATH="+os.Getenv("PROFLAB_PLUGIN_PATH"))
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS skid.lua") {
		t.Fatalf("proflab run skid.lua: %v\n%s", err, out)
	}
}
