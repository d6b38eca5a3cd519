package sweep_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep"
)

// TOML's nan and ±inf as parameters are bad input naming the file, line
// and key, refused when the file is read, not a panic when a run's
// parameters are encoded (issue 20, item 13).
func TestNonFiniteParametersAreRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.lua"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, doc, key, what string }{
		{"grid nan", "[grid]\nx = [1.0, nan]\n", `"grid.x"`, "value 2 is nan"},
		{"grid inf", "[grid]\nx = [inf]\n", `"grid.x"`, "value 1 is inf"},
		{"grid -inf in a list", "[grid]\nx = [[1.0, -inf]]\n", `"grid.x"`, "a list holding -inf"},
		{"zip nan", "[zip]\nx = [nan, 1.0]\ny = [1, 2]\n", `"zip.x"`, "value 1 is nan"},
		{"set nan", "[set]\nx = nan\n", `"set.x"`, "nan"},
		{"set -inf", "[set]\nx = -inf\n", `"set.x"`, "-inf"},
		{"range to inf", "[grid]\nx = { from = 1.0, to = inf, steps = 3 }\n", `"grid.x.to"`, "inf"},
		{"range from nan", "[grid]\nx = { from = nan, to = 1.0, steps = 3 }\n", `"grid.x.from"`, "nan"},
		{"range overflows", "[grid]\nx = { from = -1.7e308, to = 1.7e308, steps = 3 }\n", `"grid.x"`, "overflows"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "s.toml")
			if err := os.WriteFile(path, []byte("scenario = \"s.lua\"\n"+tt.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			err := readAndList(path)
			if err == nil {
				t.Fatalf("no error for\n%s", tt.doc)
			}
			for _, w := range []string{"s.toml:3", tt.key, tt.what} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tt.name != "range overflows" && !strings.Contains(err.Error(), "not a finite number") {
				t.Errorf("error %q does not say the value is not a finite number", err)
			}
		})
	}
}

// readAndList does what `sweep --dry-run` does: read, expand, and make
// every run. A panic comes back as an error that says so.
func readAndList(path string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("a panic instead of an error: %v", r)
		}
	}()
	f, err := sweep.ReadFile(path)
	if err != nil {
		return err
	}
	plan, err := sweep.Expand(f, nil)
	if err != nil {
		return err
	}
	for i := range plan.Len() {
		plan.Run(i)
	}
	return nil
}
