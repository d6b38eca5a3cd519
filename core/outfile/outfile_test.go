package outfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/leaftest"
	"github.com/proflab/proflab/core/outfile"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.prof")
	old := filepath.Join(dir, "old.toml")
	for _, p := range []string{in, old} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link.toml")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	src, err := os.Stat(in)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, out string
		force     bool
		want      string // "" for no error
	}{
		{"new file", filepath.Join(dir, "new.toml"), false, ""},
		{"existing file", old, false, "the file exists: give a new file, or --force to replace it"},
		{"existing file, forced", old, true, ""},
		{"the input", in, true, "it is the input (in.prof): give another file"},
		{"a link to the input", link, true, "it is the input (in.prof)"},
		{"a folder", dir, true, "it is a folder"},
		{"no folder", filepath.Join(dir, "nodir", "x.toml"), false, "the folder " + filepath.Join(dir, "nodir") + " does not exist: create it first"},
		{"a device", os.DevNull, false, ""},
	}
	for _, tc := range tests {
		err := outfile.Check(tc.out, tc.force, src, "the input (in.prof)")
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Write replaces a file whole, through a symlink replaces its target,
// writes a device as it is, and on an error leaves nothing behind and
// names no temporary file.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.toml")
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := outfile.Write(out, write("one")); err != nil {
		t.Fatal(err)
	}
	if err := outfile.Write(out, func(w io.Writer) error { io.WriteString(w, "torn"); return errors.New("stopped") }); err == nil || err.Error() != "stopped" {
		t.Fatalf("a failing write: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "one" {
		t.Errorf("after a failed write the file holds %q, want the old %q", b, "one")
	}
	link := filepath.Join(dir, "link.toml")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	if err := outfile.Write(link, write("two")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "two" {
		t.Errorf("the link's target holds %q, want %q", b, "two")
	}
	if err := outfile.Write(os.DevNull, write("x")); err != nil {
		t.Errorf("writing %s: %v", os.DevNull, err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Errorf("%s is no longer a device", os.DevNull)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the folder holds %d entries, want out.toml and link.toml (no temporary file)", len(entries))
	}
	// the folder goes away between the check and the write
	gone := filepath.Join(dir, "nodir", "x.toml")
	err := outfile.Write(gone, write("x"))
	if err == nil || strings.Contains(err.Error(), ".x.toml.") || !strings.Contains(err.Error(), "the folder "+filepath.Join(dir, "nodir")+" does not exist") {
		t.Errorf("Write: %v; want the person's folder named, not the temporary file", err)
	}
}

func TestOutfileIsALeaf(t *testing.T) {
	leaftest.Check(t, leaftest.Rule{Why: "outfile serves every command that writes a file a person names: standard library only"})
}
