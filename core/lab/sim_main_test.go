package lab_test

import (
	"os"
	"testing"

	"github.com/proflab/proflab/halplugins/halrpc/halrpctest"
)

// TestMain serves the HAL plugins when the test executable is started as
// one (see plugins in bench_test.go), and removes their folder after the
// tests.
func TestMain(m *testing.M) {
	halrpctest.ServeIfPlugin()
	code := m.Run()
	if pluginDir != "" {
		os.RemoveAll(pluginDir)
	}
	os.Exit(code)
}
