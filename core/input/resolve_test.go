package input_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/proflab/proflab/core/input"
)

// ResolveWithin follows symlinks inside the folders, and calls one that
// leads out ErrOutside whether or not its target exists; a folder named
// through a symlink is resolved.
func TestResolveWithin(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "dir")
	for _, d := range []string{"dir/sub", "other"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"dir/a", "dir/sub/b", "other/c"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"dir/in":      "sub/b",
		"dir/chain":   "in",
		"dir/subdir":  filepath.Join(dir, "sub"),
		"dir/root":    "/",
		"dir/out":     "../other/c",
		"dir/missing": "../other/none",
		"dir/loop":    "loop",
		"alias":       "dir",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	real := func(p string) string { return filepath.Join(root, p) }
	for _, tt := range []struct {
		path, dir string
		want      string // "": an error
		err       error
	}{
		{"dir/a", "dir", real("dir/a"), nil},
		{"dir/in", "dir", real("dir/sub/b"), nil},
		{"dir/chain", "dir", real("dir/sub/b"), nil},
		{"dir/subdir/b", "dir", real("dir/sub/b"), nil},
		{"alias/in", "alias", real("dir/sub/b"), nil},
		{"dir/nothing", "dir", "", fs.ErrNotExist},
		{"dir/sub/nothing", "dir", "", fs.ErrNotExist},
		{"dir/root/etc/passwd", "dir", "", input.ErrOutside},
		{"dir/root/etc/nonexistent", "dir", "", input.ErrOutside},
		{"dir/out", "dir", "", input.ErrOutside},
		{"dir/missing", "dir", "", input.ErrOutside},
		{"dir/out", "", real("other/c"), nil}, // root allowed
		{"other/c", "dir", "", input.ErrOutside},
		{"dir/loop", "dir", "", nil},
		// A folder that does not exist (the embedded tools' "<proflab>")
		// holds nothing: a file under it does not exist, and is not outside.
		{"nofolder/tools/x.lua", "nofolder", "", fs.ErrNotExist},
	} {
		dirs := []string{root}
		if tt.dir != "" {
			dirs = []string{real(tt.dir)}
		}
		got, err := input.ResolveWithin(real(tt.path), dirs...)
		switch {
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("%s in %s: %q, %v; want %q", tt.path, tt.dir, got, err, tt.want)
		case tt.want == "" && err == nil:
			t.Errorf("%s in %s: %q, want an error", tt.path, tt.dir, got)
		case tt.err != nil && !errors.Is(err, tt.err):
			t.Errorf("%s in %s: error %v, want %v", tt.path, tt.dir, err, tt.err)
		}
	}
}
