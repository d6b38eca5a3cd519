package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/halplugins/halrpc/halrpctest"
)

// TestMain makes the shipped HAL plugins findable: every run starts the
// configured HALs before it begins. `make test` points PROFLAB_PLUGIN_PATH
// at ./bin; a bare `go test` serves them from this test executable,
// linked under their names (halrpctest).
func TestMain(m *testing.M) {
	halrpctest.ServeIfPlugin()
	os.Exit(func() int {
		if os.Getenv(halhost.EnvPluginPath) == "" {
			dir, err := os.MkdirTemp("", "proflab-plugins-")
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			defer os.RemoveAll(dir)
			if _, err := halrpctest.Install(dir, "proflab-hal-apic", "proflab-hal-pmu", "proflab-hal-pebs"); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			os.Setenv(halhost.EnvPluginPath, dir)
		}
		return m.Run()
	}())
}
