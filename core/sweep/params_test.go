package sweep_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep"
)

// A sweep axis that no run reads (a misspelt `intervall`) ran every run
// at the scenario's default without a word: it is reported in the
// summary, summary.md and sweep.json, and --strict-params makes it an
// error. A parameter [config] sets counts as used; pairs over lab.params
// reads them all.
func TestUnreadParameters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.lua"), []byte(`local lab = require "proflab"
lab.record{ i = lab.params.interval or 10000, v = lab.params.versionless }
`), 0o644)
	os.WriteFile(filepath.Join(dir, "all.lua"), []byte(`local lab = require "proflab"
local n = 0
for k in pairs(lab.params) do n = n + 1 end
lab.record{ n = n }
`), 0o644)
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte("config_file = "+quote(inprocConfig(t))+"\n"+body), 0o644)
		return path
	}
	typo := write("typo.toml", "scenario = \"s.lua\"\n[grid]\nintervall = [1000, 2000]\nversion = [\"6.1\", \"10.0.19041\"]\n[set]\nextra = 1\n[config]\nversion = \"machine.version\"\n")
	sum, err := execute(plan(t, typo), filepath.Join(dir, "out"), sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sum.Unread) != "[extra intervall]" {
		t.Errorf("unread %v, want [extra intervall] (version is set through [config])", sum.Unread)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "out", "summary.md"))
	if !strings.Contains(string(b), "no run read the parameters extra, intervall") {
		t.Errorf("summary.md does not warn:\n%s", b)
	}
	m, _ := sweep.ReadManifest(filepath.Join(dir, "out"))
	if fmt.Sprint(m.Unread) != "[extra intervall]" || fmt.Sprint(m.ParamsRead) != "[version]" {
		t.Errorf("sweep.json: read %v, unread %v", m.ParamsRead, m.Unread)
	}
	_, err = execute(plan(t, typo), filepath.Join(dir, "strict"), sweep.Options{StrictParams: true})
	if !errors.Is(err, sweep.ErrUnreadParams) || !strings.Contains(err.Error(), "intervall") {
		t.Errorf("--strict-params: %v", err)
	}

	good := write("good.toml", "scenario = \"s.lua\"\n[grid]\ninterval = [1000, 2000]\n")
	if sum, err := execute(plan(t, good), filepath.Join(dir, "good"), sweep.Options{StrictParams: true}); err != nil || len(sum.Unread) != 0 {
		t.Errorf("every parameter read: %v, %v", sum.Unread, err)
	}
	all := write("all.toml", "scenario = \"all.lua\"\n[grid]\na = [1, 2]\n[set]\nb = 3\n")
	if sum, err := execute(plan(t, all), filepath.Join(dir, "all"), sweep.Options{StrictParams: true}); err != nil || len(sum.Unread) != 0 {
		t.Errorf("pairs(lab.params): %v, %v", sum.Unread, err)
	}
}
