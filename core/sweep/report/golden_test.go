package report_test

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// The reports of the fixture sweep, every file byte for byte: the CSV,
// the summary, the page and each plot (go test ./core/sweep/report
// -update rewrites them; look at the page and the plots when they change).
func TestReportGolden(t *testing.T) {
	dir := fixture(t)
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel != "results.jsonl" && !strings.HasPrefix(filepath.Base(rel), ".") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	golden := filepath.Join("testdata", "golden")
	if *update {
		os.RemoveAll(golden)
	}
	for _, rel := range files {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(golden, filepath.FromSlash(strings.ReplaceAll(rel, string(filepath.Separator), "__")))
		if *update {
			os.MkdirAll(golden, 0o755)
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (go test ./core/sweep/report -update writes it)", rel, err)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from %s (-update if the change is intended)", rel, path)
		}
	}
	if entries, _ := os.ReadDir(golden); !*update && len(entries) != len(files) {
		t.Errorf("the reports are %d files, the goldens %d: %v", len(files), len(entries), files)
	}
}
