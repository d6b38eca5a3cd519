package main

// NaN and ±inf parameters (issue 20, item 13) are bad input: exit 2 with
// a message naming the key (file:line for a sweep file, the flag for
// --set), never a Go panic, and `run --out` refuses before it runs.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNonFiniteParametersAreBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ok.lua", "local lab = require \"proflab\"\nprint(\"SCENARIO-RAN\", lab.params.x)\n")
	write("grid.toml", "scenario = \"ok.lua\"\n[grid]\nx = [1.0, nan]\n")
	write("zip.toml", "scenario = \"ok.lua\"\n[zip]\nx = [inf]\n")
	write("set.toml", "scenario = \"ok.lua\"\n[set]\nx = -inf\n")
	write("range.toml", "scenario = \"ok.lua\"\n[grid]\nx = { from = 1.0, to = inf, steps = 3 }\n")
	write("fine.toml", "scenario = \"ok.lua\"\n[set]\nx = 1\n")
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"sweep", "--dry-run", "grid.toml"}, []string{"grid.toml:3", `"grid.x"`, "nan", "not a finite number"}},
		{[]string{"sweep", "--dry-run", "zip.toml"}, []string{"zip.toml:3", `"zip.x"`, "inf", "not a finite number"}},
		{[]string{"sweep", "--dry-run", "set.toml"}, []string{"set.toml:3", `"set.x"`, "-inf", "not a finite number"}},
		{[]string{"sweep", "--dry-run", "range.toml"}, []string{"range.toml:3", `"grid.x.to"`, "inf", "not a finite number"}},
		{[]string{"sweep", "--dry-run", "fine.toml", "--set", "x=nan"}, []string{"--set x=nan", "not a finite number"}},
		{[]string{"sweep", "grid.toml", "--out", "sweep-out"}, []string{"grid.toml:3", `"grid.x"`}},
		{[]string{"run", "ok.lua", "--set", "x=nan"}, []string{"--set x=nan", "not a finite number"}},
		{[]string{"run", "ok.lua", "--set", "x=inf", "--out", "run-out"}, []string{"--set x=inf", "not a finite number"}},
		{[]string{"run", "ok.lua", "--set", "x=[1.0, -inf]", "--out", "run-out"}, []string{"--set x=[1.0, -inf]", "-inf"}},
	} {
		code, out, _ := runInputs(t, dir, 60*time.Second, tt.args...)
		if code == -1 {
			continue
		}
		name := "proflab " + strings.Join(tt.args, " ")
		if code != ExitUsage {
			t.Errorf("%s: exit %d, want %d (bad input); output:\n%s", name, code, ExitUsage, out)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the output does not say %q:\n%s", name, w, out)
			}
		}
		for _, bad := range []string{"panic", "goroutine ", "SCENARIO-RAN"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: the output holds %q (a panic, or the scenario ran):\n%s", name, bad, out)
			}
		}
	}
	for _, d := range []string{"run-out", "sweep-out"} {
		if _, err := os.Stat(filepath.Join(dir, d)); !os.IsNotExist(err) {
			t.Errorf("%s was created (%v): a refused parameter must stop the command before it writes", d, err)
		}
	}
}
