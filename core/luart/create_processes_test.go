package luart

import (
	"os"
	"path/filepath"
	"testing"
)

// A workload that says create_processes (as an imported one does) runs on
// a machine that has none of its processes: they are made for the run,
// with a normal process's token.
func TestRunCreatesAnImportedWorkloadsProcesses(t *testing.T) {
	dir := t.TempDir()
	wl := `create_processes = true
[[process]]
name = "server"
[[process.function]]
name = "f"
base = "0x401000"
size = 4096
weight = 1
`
	if err := os.WriteFile(filepath.Join(dir, "w.toml"), []byte(wl), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, _ := newTestRuntime(t, Config{Dir: dir, HALs: inprocHALs(t)})
	err := rt.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{ cpus = 1 }
		local a = m:run{ duration_us = 1000, workload = "w.toml" }
		local b = m:run{ duration_us = 1000, workload = "w.toml" }
		assert(a.truth.f.instructions > 0 and b.truth.f.instructions > 0)`))
	if err != nil {
		t.Errorf("create_processes: %s", err.Detail())
	}
}
