package importer_test

import (
	"testing"

	"github.com/proflab/proflab/core/leaftest"
)

// TestImporterIsALeaf keeps the importers pure functions from bytes to a
// workload: no file, kernel, Lua, plugin or simulator code.
func TestImporterIsALeaf(t *testing.T) {
	t.Parallel()
	leaftest.Check(t, leaftest.Rule{Why: "an importer is a pure function from a profile's bytes to a workload spec", Packages: "./...", Allow: []string{
		"github.com/proflab/proflab/core/workload",
		"github.com/proflab/proflab/core/input",
		"github.com/proflab/proflab/core/suggest",
		"github.com/proflab/proflab/core/tomlstrict",
		"github.com/proflab/proflab/core/suggest", // tomlstrict's "did you mean" (stdlib only)
		"github.com/BurntSushi/toml/...",
		"github.com/google/pprof/profile",
	}, ForbidStd: []string{"os", "os/exec", "net/...", "syscall"}})
}
