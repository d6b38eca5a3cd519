package halhost_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
)

// Relative folders of the search are resolved against the working
// directory: Find returns an absolute, cleaned path, never a bare name
// that exec would look up in PATH (issue 20, item 14).
func TestFindReturnsAbsolutePaths(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	if err := os.MkdirAll(filepath.Join(wd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"plug", "sub/other"} {
		if err := os.WriteFile(filepath.Join(wd, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := halhost.Search{PluginPath: ".", Path: "./sub/../sub"}
	for plugin, want := range map[string]string{
		"plug":        filepath.Join(wd, "plug"),
		"other":       filepath.Join(wd, "sub", "other"),
		"./plug":      filepath.Join(wd, "plug"),
		"sub/../plug": filepath.Join(wd, "plug"),
	} {
		got, err := s.Find(plugin)
		if err != nil || got != want || !filepath.IsAbs(got) {
			t.Errorf("Find(%q) = %q, %v; want the absolute %q", plugin, got, err, want)
		}
	}
	_, err := s.Find("missing")
	if err == nil || !strings.Contains(err.Error(), ". (PROFLAB_PLUGIN_PATH, in the working directory: "+wd+")") {
		t.Errorf("Find(missing) = %v; want the error to say where the relative folder . is", err)
	}
}

// With PROFLAB_PLUGIN_PATH=. and another program of the plugin's name in
// PATH, the run records the plugin found in the working directory (its
// absolute path and sha256) and starts that one, not PATH's.
func TestPreflightRecordsAndStartsTheSamePlugin(t *testing.T) {
	wd := t.TempDir()
	impostors := t.TempDir()
	names := []string{"proflab-hal-apic", "proflab-hal-pmu", "proflab-hal-pebs"}
	for _, n := range names {
		if err := os.Symlink(filepath.Join(pluginDir, n), filepath.Join(wd, n)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(impostors, n), []byte("#!/bin/sh\necho impostor started >&2\nexit 7\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(wd)
	t.Setenv("PATH", impostors+string(os.PathListSeparator)+os.Getenv("PATH"))
	cfg := config.Default()
	h := halhost.New(cfg.HAL, halhost.Options{Search: &halhost.Search{PluginPath: ".", Path: os.Getenv("PATH")}})
	defer h.Close()
	_, plugins, err := halhost.Preflight(h, cfg)
	if err != nil {
		t.Fatalf("Preflight with PROFLAB_PLUGIN_PATH=. and impostors in PATH: %v", err)
	}
	for _, p := range plugins {
		want := filepath.Join(wd, "proflab-hal-"+p.HAL)
		if p.Path != want {
			t.Errorf("hal %s: recorded path %q, want the absolute %q", p.HAL, p.Path, want)
		}
		b, err := os.ReadFile(want)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); p.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("hal %s: recorded sha256 %s is not the sha256 of %s", p.HAL, p.SHA256, want)
		}
		if p.Name != p.HAL {
			t.Errorf("hal %s: the started plugin describes itself as %q", p.HAL, p.Name)
		}
	}
}

// A plugin path that names a device or a FIFO is refused, not hashed
// (which would read without end, or wait for a writer).
func TestFindRefusesWhatIsNotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "proflab-hal-fifo")
	if err := syscall.Mkfifo(fifo, 0o755); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	if err := os.Chmod(fifo, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := (halhost.Search{}).Find(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Find(a FIFO) = %v; want an error saying it is not a regular file", err)
	}
}
