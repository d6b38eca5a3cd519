package importer_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/leaftest"
)

// TestImporterIsALeaf keeps the importers pure functions from bytes to a
// workload: no file, kernel, Lua, plugin or simulator code.
func TestImporterIsALeaf(t *testing.T) {
	t.Parallel()
	leaftest.Check(t, leaftest.Rule{Why: "an importer is a pure function from a profile's bytes to a workload spec", Packages: "./...", Allow: []string{
		"github.com/proflab/proflab/core/workload",
		"github.com/proflab/proflab/core/input",
		"github.com/proflab/proflab/core/suggest", // "did you mean" (stdlib only)
		"github.com/proflab/proflab/core/tomlstrict",
		"github.com/BurntSushi/toml/...",
		"github.com/google/pprof/profile",
		"github.com/proflab/proflab/core/etl", // the .etl format (stdlib only)
	}, ForbidStd: []string{"os", "os/exec", "net/...", "syscall"},
		Except: []string{"github.com/proflab/proflab/core/workload/importer/importtest"}})
}

// importerLayers are the packages of the import, each with what it may
// depend on besides the standard library (see TestImporterLayers).
var importerLayers = func() map[string]leaftest.Rule {
	const imp = "github.com/proflab/proflab/core/workload/importer"
	workload := []string{
		"github.com/proflab/proflab/core/workload",
		"github.com/proflab/proflab/core/input",
		"github.com/proflab/proflab/core/suggest",
		"github.com/proflab/proflab/core/tomlstrict",
		"github.com/BurntSushi/toml/...",
	}
	with := func(base []string, more ...string) []string { return append(slices.Clone(base), more...) }
	formats := with(workload, imp+"/profmodel", imp+"/profread")
	return map[string]leaftest.Rule{
		"profmodel": {Why: "the model knows no file format and no import: a format fills it", Allow: workload},
		"profread":  {Why: "the format contract and reading helpers build on the model alone", Allow: with(workload, imp+"/profmodel")},
		"native":    {Why: "a format family reads into the model through the contract: never the entry point, nor another family", Allow: with(formats, "github.com/google/pprof/profile")},
		"jsonprof":  {Why: "a format family reads into the model through the contract: never the entry point, nor another family", Allow: formats},
		"calltree":  {Why: "a format family reads into the model through the contract: never the entry point, nor another family", Allow: formats},
		"etlprof":   {Why: "a format family reads into the model through the contract: never the entry point, nor another family", Allow: with(formats, "github.com/proflab/proflab/core/etl")},
		// the entry point composes the families; importtest makes
		// profiles and checks imports for tests (TestImporterIsALeaf
		// covers both)
		".":          {},
		"importtest": {},
	}
}()

// TestImporterLayers keeps each package of the import to its one job and
// the dependencies pointing down: profmodel (the model) ← profread (the
// format contract) ← native, jsonprof, calltree (the formats) ← importer
// (the entry point and the registry). Every package under importer/ must
// have its place here.
func TestImporterLayers(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	root, err := exec.Command("go", "list", "-f", "{{.Dir}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(dir, strings.TrimSpace(string(root))), "/")
		if rel == "" {
			rel = "."
		}
		if _, ok := importerLayers[rel]; !ok {
			t.Errorf("package %s has no layer: give it one in importerLayers (imports_test.go)", rel)
		}
	}
	names := make([]string, 0, len(importerLayers))
	for name := range importerLayers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		rule := importerLayers[name]
		if rule.Why == "" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			rule.Packages = "./" + name
			leaftest.Check(t, rule)
		})
	}
}
