package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/haltest"
)

// pluginName is the name under which the test executable is this
// plugin: TestMain then runs main, as the built plugin would (go-plugin's
// helper-process pattern, which spares the test a go build).
const pluginName = "custom-hal"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == pluginName {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The HAL passes the conformance suite in-process.
func TestConformance(t *testing.T) { haltest.Run(t, newHAL) }

// Its counters carry the configured skid.
func TestSkidSetting(t *testing.T) {
	in := hal.Local(newHAL)
	if err := in.Configure(haltest.Machines()[0], []byte(`{"skid": 7}`)); err != nil {
		t.Fatal(err)
	}
	p, err := in.StartInterrupt([]int{0}, hal.ProfileBranchMispredictions)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Counters) != 1 || p.Counters[0].Index != 1 || p.Counters[0].Skid[0].Instructions != 7 {
		t.Fatalf("programming %+v", p)
	}
	if err := hal.Local(newHAL).Configure(haltest.Machines()[0], []byte(`{"skid": 5000}`)); err == nil {
		t.Fatal("skid 5000 accepted")
	}
	if n, err := in.NumberOfCounters(); n != 2 || err != nil {
		t.Fatalf("HalQueryProfileNumberOfCounters: %d, %v, want 2 (one counter per source)", n, err)
	}
}

// Built as a plugin, it passes `proflab hal check` and shows in
// `proflab hal list` when the config points at it.
func TestProflabHalCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds proflab and the plugin")
	}
	dir := t.TempDir()
	plugin := filepath.Join(dir, pluginName)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, plugin); err != nil {
		t.Fatal(err)
	}
	proflab := filepath.Join(os.Getenv("PROFLAB_PLUGIN_PATH"), "proflab") // make test builds it beside the plugins
	if _, err := os.Stat(proflab); os.Getenv("PROFLAB_PLUGIN_PATH") == "" || err != nil {
		if proflab, err = haltest.Build(dir, "github.com/proflab/proflab/cmd/proflab"); err != nil {
			t.Fatal(err)
		}
	}
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
	cmd.Env = append(os.Environ(), "PROFLAB_PLUGIN_PATH="+os.Getenv("PROFLAB_PLUGIN_PATH"))
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS skid.lua") {
		t.Fatalf("proflab run skid.lua: %v\n%s", err, out)
	}
}
