package halscaffold

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseGoMod(t *testing.T) {
	v, reqs := parseGoMod("module m\n\ngo 1.26.8\n\nrequire example.com/a v1.0.0\n\nrequire (\n\tgithub.com/b/c v0.1.2\n\tgolang.org/x/d v0.0.0-2026 // indirect\n)\n")
	if v != "1.26.8" || !reflect.DeepEqual(reqs, []string{"example.com/a v1.0.0", "github.com/b/c v0.1.2", "golang.org/x/d v0.0.0-2026"}) {
		t.Errorf("parseGoMod = %q, %q", v, reqs)
	}
}

func TestWriteChecksItsInputs(t *testing.T) {
	root := FindProflab(".")
	if root == "" {
		t.Fatal("the test runs inside the proflab checkout, but FindProflab did not find it")
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Name: "Bad_Name", Dir: t.TempDir(), Proflab: root}, "lower-case letters"},
		{Options{Name: "ok", Dir: t.TempDir(), Proflab: t.TempDir()}, "is not a proflab checkout"},
	} {
		if _, err := Write(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(Options{Name: "ok", Dir: full, Proflab: root}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("non-empty folder: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "ok")
	files, err := Write(Options{Name: "ok", Dir: dir, Proflab: root})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README.md", ".gitignore", "go.mod", "lab.toml", "main.go", "main_test.go", "scenario.lua", "go.sum"}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	mod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	for _, w := range []string{"module proflab-hal-ok\n", "replace github.com/proflab/proflab => " + filepath.ToSlash(root), "github.com/hashicorp/go-plugin v"} {
		if !strings.Contains(string(mod), w) {
			t.Errorf("go.mod lacks %q:\n%s", w, mod)
		}
	}
}

// Timer writes the same files, with the timer's main.go, lab.toml,
// scenario.lua and README; the counter's have none of the timer's.
func TestWriteTimer(t *testing.T) {
	root := FindProflab(".")
	for _, tc := range []struct {
		timer     bool
		want, not string
		config    string
	}{
		{true, "hal.TimerOneShot", "CounterBase", "jitter = 10"},
		{false, "hal.CounterBase", "TimerOneShot", "skid = 2"},
	} {
		dir := filepath.Join(t.TempDir(), "h")
		files, err := Write(Options{Name: "h", Dir: dir, Proflab: root, Timer: tc.timer})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"README.md", ".gitignore", "go.mod", "lab.toml", "main.go", "main_test.go", "scenario.lua", "go.sum"}; !reflect.DeepEqual(files, want) {
			t.Errorf("timer %v: files %v, want %v", tc.timer, files, want)
		}
		main, _ := os.ReadFile(filepath.Join(dir, "main.go"))
		cfg, _ := os.ReadFile(filepath.Join(dir, "lab.toml"))
		readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
		if !strings.Contains(string(main), tc.want) || strings.Contains(string(main), tc.not) || !strings.Contains(string(cfg), tc.config) ||
			strings.Contains(string(readme), "[[") || strings.Contains(string(readme), "--timer") != tc.timer {
			t.Errorf("timer %v: main.go, lab.toml or README.md is the other HAL's:\n%s\n%s\n%s", tc.timer, main, cfg, readme)
		}
	}
}
