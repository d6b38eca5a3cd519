package halhost

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plugin, or its folder, that other users may write is warned of, once
// per file or folder however often it is used (issue 20, item 14).
func TestWarnsOncePerPluginOthersCanWrite(t *testing.T) {
	var out bytes.Buffer
	old := warnTo
	warnTo = &out
	t.Cleanup(func() { warnTo = old })

	safe := t.TempDir()
	open := t.TempDir()
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	mk := func(dir, name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := mk(safe, "good", 0o755)
	loose := mk(safe, "loose", 0o777)
	a, b := mk(open, "a", 0o755), mk(open, "b", 0o755)

	warnIfWritable(good, nil)
	if out.Len() != 0 {
		t.Fatalf("a plugin only its owner can write got a warning: %s", out.String())
	}
	for range 2 {
		warnIfWritable(loose, nil)
		warnIfWritable(a, nil)
		warnIfWritable(b, nil)
	}
	got := out.String()
	if n := strings.Count(got, "HAL plugin "+loose+" is writable by other users"); n != 1 {
		t.Errorf("%d warnings of %s, want 1:\n%s", n, loose, got)
	}
	if n := strings.Count(got, "the folder "+open+", which holds HAL plugin"); n != 1 {
		t.Errorf("%d warnings of the folder %s, want 1:\n%s", n, open, got)
	}
	if !strings.Contains(got, "chmod o-w "+loose) || !strings.Contains(got, "chmod o-w "+open) {
		t.Errorf("the warnings do not say what to do:\n%s", got)
	}
	if strings.Count(got, "\n") != 2 {
		t.Errorf("want exactly two warnings:\n%s", got)
	}
}
