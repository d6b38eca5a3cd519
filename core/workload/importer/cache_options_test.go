package importer_test

import (
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
)

// A file imported with other choices (a process, a forced format) is
// another workload under another key, each answered from the cache
// while the file stays; a forced format imports a file that is not read
// as a workload TOML first.
func TestCacheKeepsImportChoicesApart(t *testing.T) {
	dir := t.TempDir()
	path := writeFolded(t, dir, "a.folded", "work")
	c := importer.NewCache(1 << 20)
	plain, err := c.Load(path, "x64")
	if err != nil {
		t.Fatal(err)
	}
	named, err := c.LoadWith(path, importer.LoadOptions{Arch: "x64", Process: "app"})
	if err != nil {
		t.Fatal(err)
	}
	if named.Spec == plain.Spec || named.Key == plain.Key {
		t.Fatalf("the import with a process was answered with the plain one (key %q)", named.Key)
	}
	if got := named.Spec.Processes[0].Name; got != "app" {
		t.Errorf("the process is %q, want the one asked for, app", got)
	}
	again, err := c.LoadWith(path, importer.LoadOptions{Arch: "x64", Process: "app"})
	if err != nil || again.Spec != named.Spec {
		t.Errorf("the same choices were not answered from the cache (err %v)", err)
	}
	if same, err := c.LoadWith(path, importer.LoadOptions{Arch: "x64"}); err != nil || same.Spec != plain.Spec || same.Key != plain.Key {
		t.Errorf("no choices is Load's workload and key (err %v)", err)
	}
	forced, err := c.LoadWith(path, importer.LoadOptions{Arch: "x64", Format: importer.Folded})
	if err != nil || forced.Imported == nil || forced.Imported.Format != importer.Folded || forced.Key == plain.Key {
		t.Errorf("a forced format: %+v, %v", forced, err)
	}
	if _, err := c.LoadWith(path, importer.LoadOptions{Arch: "x64", Format: importer.Perf}); err == nil {
		t.Error("folded stacks forced to be perf text imported without an error")
	}
}
