package kernel

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestKernelImportsOnlyStdlib keeps kernel/ pure: its non-test files may
// import the standard library (minus os/exec, net, os, io/fs-touching
// packages and the clock) and kernel/... only.
func TestKernelImportsOnlyStdlib(t *testing.T) {
	forbidden := []string{"os", "os/exec", "net", "net/http", "time", "syscall", "math/rand", "math/rand/v2", "sync", "io/ioutil", "plugin"}
	thirdParty := []string{"github.com/yuin/gopher-lua", "github.com/hashicorp/go-plugin", "google.golang.org/grpc", "github.com/BurntSushi/toml"}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			for _, bad := range append(forbidden, thirdParty...) {
				if p == bad || strings.HasPrefix(p, bad+"/") {
					t.Errorf("%s imports %s: kernel/ must stay free of I/O, clocks, goroutine tools, Lua, TOML and plugins", path, p)
				}
			}
			first := strings.SplitN(p, "/", 2)[0]
			if strings.Contains(first, ".") && !strings.HasPrefix(p, "github.com/proflab/proflab/kernel") {
				t.Errorf("%s imports %s: only the standard library and kernel/... are allowed", path, p)
			}
			if strings.HasPrefix(p, "github.com/proflab/proflab/") && !strings.HasPrefix(p, "github.com/proflab/proflab/kernel") {
				t.Errorf("%s imports %s: kernel/ depends on nothing else of proflab", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
