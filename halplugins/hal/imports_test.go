package hal

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHALContractImportsOnlyStdlib keeps the HAL contract a leaf that a
// plugin author imports alone: its non-test files import the standard
// library and the NT constants (kernel/nt, itself standard-library only)
// and nothing else.
func TestHALContractImportsOnlyStdlib(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	ntFiles, err := filepath.Glob(filepath.Join("..", "..", "kernel", "nt", "*.go"))
	if err != nil || len(ntFiles) == 0 {
		t.Fatalf("kernel/nt's files: %v", err)
	}
	fset := token.NewFileSet()
	for _, path := range append(files, ntFiles...) {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			first := strings.SplitN(p, "/", 2)[0]
			if p == "github.com/proflab/proflab/kernel/nt" && !strings.Contains(path, filepath.Join("kernel", "nt")) {
				continue // the shared leaf of NT constants
			}
			if strings.Contains(first, ".") {
				t.Errorf("%s imports %s: the HAL contract is standard library only (plus kernel/nt's constants)", path, p)
			}
		}
	}
}
