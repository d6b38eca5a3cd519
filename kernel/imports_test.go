package kernel

import (
	"testing"

	"github.com/proflab/proflab/core/leaftest"
)

// TestKernelImportsOnlyStdlib keeps kernel/ pure: its code imports the
// standard library (without I/O, the clock, goroutine tools or plugins)
// and kernel/... only.
func TestKernelImportsOnlyStdlib(t *testing.T) {
	t.Parallel()
	leaftest.Check(t, leaftest.Rule{
		Why:       "kernel/ must stay free of I/O, clocks, goroutine tools, Lua, TOML, plugins and everything else of proflab",
		Packages:  "./...",
		Allow:     []string{"github.com/proflab/proflab/kernel/..."},
		ForbidStd: []string{"os", "os/exec", "net/...", "time", "syscall", "math/rand", "math/rand/v2", "sync", "io/ioutil", "plugin"},
	})
}
