package luart

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// A run that reads a workload file in two versions (m:images on one,
// m:run on the file replaced since) records both, in the order read;
// a run that reads one version records none.
func TestRunRecordsEveryVersionOfAnInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.toml")
	version := func(name string) (text []byte, sum string) {
		text = []byte("create_processes = true\nname = \"" + name + "\"\n[[process]]\nname = \"app\"\n[[process.function]]\nname = \"f\"\nbase = \"0x401000\"\nsize = 4096\nweight = 1\n")
		s := sha256.Sum256(text)
		return text, hex.EncodeToString(s[:])
	}
	a, sumA := version("A")
	b, sumB := version("B")
	for _, tt := range []struct {
		name, script string
		want         []string
	}{
		{"one version", `local m = lab.machine{ cpus = 1 }
			assert(m:images{ workload = "w.toml" }.name == "A")
			m:run{ duration_us = 100, workload = "w.toml" }`, nil},
		{"replaced between two readings", `local m = lab.machine{ cpus = 1 }
			assert(m:images{ workload = "w.toml" }.name == "A")
			replace()
			m:run{ duration_us = 100, workload = "w.toml" }
			assert(m:images{ workload = "w.toml" }.name == "B")
			restore()
			m:images{ workload = "w.toml" }`, []string{sumA, sumB}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(path, a, 0o644); err != nil {
				t.Fatal(err)
			}
			rt, _ := newTestRuntime(t, Config{Dir: dir, HALs: inprocHALs(t)})
			for name, text := range map[string][]byte{"replace": b, "restore": a} {
				rt.L.SetGlobal(name, rt.L.NewFunction(func(*lua.LState) int {
					if err := os.WriteFile(path, text, 0o644); err != nil {
						t.Error(err)
					}
					return 0
				}))
			}
			if err := rt.Exec("s.lua", []byte("local lab = require \"proflab\"\n"+tt.script)); err != nil {
				t.Fatal(err.Detail())
			}
			got := rt.InputVersions()[path]
			if !slices.Equal(got, tt.want) {
				t.Errorf("versions of w.toml: %v, want %v", got, tt.want)
			}
			if last := rt.Inputs()[path]; last != sumA {
				t.Errorf("inputs: w.toml %s, want the last reading's %s", last, sumA)
			}
		})
	}
}
