package examples_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pcallRe finds a protected call in Lua source: pcall( or xpcall(, also
// written pcall "…", pcall { … } or as a value (pcall, …).
var pcallRe = regexp.MustCompile(`\bx?pcall\b`)

// No example or scenario catches an error: a pcall that decides what
// runs hides the failure it catches (examples/real-program skipped its
// x86 PEBS rows without a word when sampling.control_areas failed). A
// scenario that expects an error says so with assert.expect_error, which
// records a check; anything else lets the error stop the run, where it
// is seen.
func TestExamplesAndScenariosSwallowNoFailure(t *testing.T) {
	n := 0
	for _, root := range []string{".", filepath.Join("..", "scenarios")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lua") {
				return err
			}
			n++
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(src), "\n") {
				code, _, _ := strings.Cut(line, "--")
				if pcallRe.MatchString(code) {
					t.Errorf("%s:%d: %s\n\tcatches an error, which hides a failure: use assert.expect_error to test that a call raises, or let the error stop the run", path, i+1, strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 20 {
		t.Errorf("read only %d Lua files: the walk no longer finds the examples and scenarios", n)
	}
}
