package importer

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/proflab/proflab/core/input"
)

// A file whose identity stays is answered without reading it; any
// change of its content, even one that keeps its size and modification
// time, is read; a file changed within input.RecentChange of its reading
// is read again until its change has settled.
func TestCacheReadsOnlyAChangedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.folded")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main;work 30\nmain 10\n")
	c := NewCache(1 << 20)
	clock := time.Now()
	c.now = func() time.Time { return clock }
	load := func() Loaded {
		t.Helper()
		ld, err := c.Load(path, "x64")
		if err != nil {
			t.Fatal(err)
		}
		return ld
	}
	first := load()
	load() // the file was written just now: read again
	if c.reads != 2 {
		t.Fatalf("%d reads of a file changed less than %v ago, want 2", c.reads, input.RecentChange)
	}
	clock = clock.Add(time.Hour) // its change has settled
	load()                       // read once more, its identity now trusted
	for range 3 {
		if ld := load(); ld.Spec != first.Spec || ld.SHA256 != first.SHA256 || ld.Key != first.Key {
			t.Fatal("an unchanged file was answered with another workload")
		}
	}
	if c.reads != 3 {
		t.Fatalf("%d reads, want 3: an unchanged, settled file was read again", c.reads)
	}
	if _, err := c.Load(path, "x86"); err != nil || c.reads != 4 {
		t.Fatalf("another architecture: %d reads, want 4 (err %v)", c.reads, err)
	}
	// the same size and modification time, other bytes: the status
	// change time (and on other systems the identity's other parts) tell
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	write("main;WORK 30\nmain 10\n")
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	clock = time.Now().Add(2 * time.Hour)
	changed := load()
	if c.reads != 5 || changed.SHA256 == first.SHA256 || changed.Spec == first.Spec {
		t.Fatalf("a rewritten file of the same size and time: %d reads, sha256 %s (was %s)", c.reads, changed.SHA256, first.SHA256)
	}
	// replaced by another file (a new inode), then back to the first
	// content: read, and answered with the first content's workload
	tmp := filepath.Join(dir, "new")
	if err := os.WriteFile(tmp, []byte("main;work 30\nmain 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if back := load(); c.reads != 6 || back.Spec != first.Spec || back.SHA256 != first.SHA256 {
		t.Fatalf("the first content again: %d reads, sha256 %s, want %s", c.reads, back.SHA256, first.SHA256)
	}
}
