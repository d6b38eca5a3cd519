package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/proflab/proflab/core/halhost"
)

// TestMain makes the shipped HAL plugins findable: every run starts the
// configured HALs before it begins. `make test` points PROFLAB_PLUGIN_PATH
// at ./bin; a bare `go test` builds them into a temporary folder.
func TestMain(m *testing.M) {
	os.Exit(func() int {
		if os.Getenv(halhost.EnvPluginPath) == "" {
			dir, err := os.MkdirTemp("", "proflab-plugins-")
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			defer os.RemoveAll(dir)
			for _, p := range []string{"apic", "pmu", "pebs"} {
				out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "proflab-hal-"+p), "../../halplugins/"+p+"/cmd/proflab-hal-"+p).CombinedOutput()
				if err != nil {
					fmt.Fprintf(os.Stderr, "building the %s plugin: %v\n%s", p, err, out)
					return 1
				}
			}
			os.Setenv(halhost.EnvPluginPath, dir)
		}
		return m.Run()
	}())
}
