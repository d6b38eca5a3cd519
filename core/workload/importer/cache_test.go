package importer_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
)

// writeFolded writes a folded-stacks file whose leaf is named leaf.
func writeFolded(t *testing.T, dir, name, leaf string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("main;"+leaf+" 30\nmain 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCacheParsesOnceWhileTheContentStays(t *testing.T) {
	dir := t.TempDir()
	path := writeFolded(t, dir, "a.folded", "work")
	c := importer.NewCache(1 << 20)
	first, err := c.Load(path, "x64")
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Load(path, "x64")
	if err != nil {
		t.Fatal(err)
	}
	if again.Spec != first.Spec || again.SHA256 != first.SHA256 || again.Key != first.Key || first.Imported == nil {
		t.Errorf("the same bytes were not answered from the cache (spec %p then %p)", first.Spec, again.Spec)
	}
	if x86, err := c.Load(path, "x86"); err != nil || x86.Spec == first.Spec || x86.Key == first.Key {
		t.Errorf("x86 was answered with the x64 workload, or under its key %q (err %v)", first.Key, err)
	}
	writeFolded(t, dir, "a.folded", "other")
	changed, err := c.Load(path, "x64")
	if err != nil {
		t.Fatal(err)
	}
	if changed.Spec == first.Spec || changed.SHA256 == first.SHA256 || changed.Key == first.Key {
		t.Fatal("a changed file was answered with its old workload")
	}
	if s := fmt.Sprintf("%+v", *changed.Spec); !strings.Contains(s, "other") || strings.Contains(s, "work") {
		t.Errorf("the changed file's workload is %s", s)
	}
	// the same content under another name has the same sum, but is
	// imported as itself: the workload, its process and its provenance
	// are named after the file
	copyPath := writeFolded(t, dir, "b.folded", "work")
	b, err := c.Load(copyPath, "x64")
	if err != nil || b.SHA256 != first.SHA256 {
		t.Fatalf("identical content: sha256 %s, want %s (err %v)", b.SHA256, first.SHA256, err)
	}
	if b.Key == first.Key || b.Spec.Name != "b.folded" || b.Spec.Processes[0].Name != "b.folded" || b.Imported.Source != copyPath {
		t.Errorf("a copy named b.folded was answered as %q (process %q, source %q, key %q)", b.Spec.Name, b.Spec.Processes[0].Name, b.Imported.Source, b.Key)
	}
}

func TestCacheBounds(t *testing.T) {
	dir := t.TempDir()
	c := importer.NewCache(1 << 20)
	var paths []string
	for i := range 10 {
		paths = append(paths, writeFolded(t, dir, fmt.Sprintf("%d.folded", i), fmt.Sprintf("f%d", i)))
	}
	specs := map[string]any{}
	for _, p := range paths {
		ld, err := c.Load(p, "x64")
		if err != nil {
			t.Fatal(err)
		}
		specs[p] = ld.Spec
	}
	// ten files, eight kept: the two least recently used were dropped
	// (asked for most recent first, so that the misses drop no file
	// still to be asked for)
	for i := len(paths) - 1; i >= 0; i-- {
		p := paths[i]
		ld, err := c.Load(p, "x64")
		if err != nil {
			t.Fatal(err)
		}
		if kept := any(ld.Spec) == specs[p]; kept != (i >= 2) {
			t.Errorf("file %d: kept %v", i, kept)
		}
	}
	// a file bigger than the whole cache is read, not kept
	tiny := importer.NewCache(8)
	a, err := tiny.Load(paths[0], "x64")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := tiny.Load(paths[0], "x64"); b.Spec == a.Spec {
		t.Error("a workload over the cache's bound was kept")
	}
}

func TestCacheNilAndErrors(t *testing.T) {
	dir := t.TempDir()
	var c *importer.Cache // caches nothing
	path := writeFolded(t, dir, "a.folded", "work")
	a, err := c.Load(path, "x64")
	if err != nil || a.Spec == nil {
		t.Fatalf("nil cache: %v", err)
	}
	if b, _ := c.Load(path, "x64"); b.Spec == a.Spec {
		t.Error("a nil cache kept a workload")
	}
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[[process]]\nname = 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c = importer.NewCache(1 << 20)
	for range 2 { // an error is not cached: it is reported each time
		if _, err := c.Load(bad, "x64"); err == nil {
			t.Fatal("a broken file loaded")
		}
	}
	if _, err := c.Load(filepath.Join(dir, "missing.toml"), "x64"); err == nil {
		t.Fatal("a missing file loaded")
	}
}

// Runs on several workers load through one cache at once (go test -race).
func TestCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	c := importer.NewCache(1 << 20)
	var paths []string
	for i := range 4 {
		paths = append(paths, writeFolded(t, dir, fmt.Sprintf("%d.folded", i), fmt.Sprintf("f%d", i)))
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 20 {
				if _, err := c.Load(paths[(w+i)%len(paths)], "x64"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}
