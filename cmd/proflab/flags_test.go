package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commandsWithFlags are every command of the tree under root that takes
// a long flag of its own (cobra's help and completion commands aside),
// by their path ("sweep merge").
func commandsWithFlags(root *cobra.Command) map[string]*cobra.Command {
	out := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			if sub.Runnable() && sub.LocalNonPersistentFlags().HasFlags() {
				out[strings.TrimPrefix(sub.CommandPath(), "proflab ")] = sub
			}
			walk(sub)
		}
	}
	walk(root)
	return out
}

// A misspelt flag, on any command, is refused with the flag it most
// likely meant (issue 28 §3).
func TestEveryCommandSuggestsTheFlagMeant(t *testing.T) {
	cmds := commandsWithFlags(newRootCmd(&bytes.Buffer{}, &bytes.Buffer{}))
	if len(cmds) < 10 {
		t.Fatalf("only %d commands with flags found", len(cmds))
	}
	for path, c := range cmds {
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if len(f.Name) < 3 || f.Name == "help" {
				return
			}
			typo := f.Name + f.Name[len(f.Name)-1:] // --seed → --seedd
			args := append(strings.Fields(path), "--"+typo)
			code, _, errOut := runCLI(args...)
			want := "unknown flag: --" + typo + " (did you mean --" + f.Name + "?)"
			if code != ExitUsage || !strings.Contains(errOut, want) {
				t.Errorf("proflab %s: code %d, stderr %q; want %d and %q", strings.Join(args, " "), code, errOut, ExitUsage, want)
			}
		})
	}
}

func TestFlagErrors(t *testing.T) {
	dir := t.TempDir()
	sc := writeScenario(t, dir, "s.lua", `print("started")`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", sc, "--seeed", "3"}, "proflab: unknown flag: --seeed (did you mean --seed?)\n"},
		{[]string{"run", sc, "--seeed=3"}, "proflab: unknown flag: --seeed (did you mean --seed?)\n"},
		// one dash before a long name: pflag reads shorthand letters
		{[]string{"run", sc, "-seed", "3"}, "proflab: unknown shorthand flag: 's' in -seed (did you mean --seed?)\n"},
		{[]string{"run", sc, "--frobnicate"}, "proflab: unknown flag: --frobnicate\n"},
		{[]string{"test", sc, "-x"}, "proflab: unknown shorthand flag: 'x' in -x\n"},
		{[]string{"--verison"}, "proflab: unknown flag: --verison (did you mean --version?)\n"},
		// a bad value: the flag, the value, what is wrong
		{[]string{"test", sc, "--timeout", "soon"}, "proflab: --timeout soon: not a duration: write it like 30s, 2m or 1h30m (0: none)\n"},
		{[]string{"run", sc, "--memory", "lots"}, `proflab: --memory lots: "lots" is not a size: write it like "1GiB", "512MiB" or "2GB" (0 or "none": no limit)` + "\n"},
		{[]string{"kernrate", "--seed", "x", "-s", "1"}, "proflab: --seed x: not a seed: give a whole number from 0 to 18446744073709551615 (decimal or 0x hex)\n"},
		{[]string{"wpr", "--timeout=-1s", "-profint"}, "proflab: --timeout -1s: a budget cannot be negative (0 means none)\n"},
	} {
		code, out, errOut := runCLI(tc.args...)
		if code != ExitUsage || errOut != tc.want || strings.Contains(out, "started") {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", tc.args, code, errOut, ExitUsage, tc.want)
		}
	}
}

// run, test and the tools take the same run flags, said the same way,
// and config check and hal list the same configuration flags: one flags
// file (issue 30 §3).
func TestRunFlagsAreOneSet(t *testing.T) {
	root := newRootCmd(&bytes.Buffer{}, &bytes.Buffer{})
	find := func(path string) *cobra.Command {
		c, _, err := root.Find(strings.Fields(path))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ref := find("run").Flags()
	check := func(path string, names ...string) {
		fs := find(path).Flags()
		for _, name := range names {
			f, want := fs.Lookup(name), ref.Lookup(name)
			switch {
			case f == nil:
				t.Errorf("proflab %s has no --%s", path, name)
			case f.Usage != want.Usage || f.Value.Type() != want.Value.Type() || f.DefValue != want.DefValue:
				t.Errorf("proflab %s --%s: %s %q (default %q); run's: %s %q (default %q)", path, name, f.Value.Type(), f.Usage, f.DefValue, want.Value.Type(), want.Usage, want.DefValue)
			}
		}
	}
	run := []string{"config", "config-set", "seed", "timeout", "memory"}
	for _, path := range []string{"test", "kernrate", "wpr", "tracelog"} {
		check(path, run...)
	}
	check("test", "set")
	for _, path := range []string{"config check", "hal list"} {
		check(path, "config", "config-set")
	}
}

// Every command that reads the configuration reads it, and checks it
// against its HALs, alike: the same input, the same message and exit
// status.
func TestCommandsReadTheConfigurationAlike(t *testing.T) {
	dir := t.TempDir()
	sc := writeScenario(t, dir, "s.lua", `print("started")`)
	typo := filepath.Join(dir, "typo.toml")
	if err := os.WriteFile(typo, []byte("[machine]\ncpu = 2\n[rn]\ntimeout = \"1s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nothere.toml")
	commands := [][]string{{"run", sc}, {"test", sc}, {"kernrate", "-s", "1"}, {"wpr", "-profint"}, {"tracelog", "-profilesources", "Help"}, {"config", "check"}}
	for _, tc := range []struct {
		flags []string
		code  int
		want  []string
	}{
		{[]string{"--config", typo}, ExitUsage, []string{
			"proflab: --config " + typo + ": " + typo + `:2: unknown key "machine.cpu" (did you mean "machine.cpus"?)`,
			typo + `:3: unknown key "rn" (did you mean "run"?)`}},
		{[]string{"--config", missing}, ExitUsage, []string{"proflab: --config " + missing + ": "}},
		{[]string{"--config-set", "machine.cpuz=3"}, ExitUsage, []string{`unknown key "machine.cpuz" (did you mean "machine.cpus"?)`}},
		{[]string{"--config-set", "machine.version=11.0"}, ExitUsage, []string{"proflab: the configuration's HALs:\n", "11.0"}},
	} {
		var first string
		for i, c := range commands {
			args := append(append([]string(nil), c...), tc.flags...)
			code, out, errOut := runCLI(args...)
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("%v: stderr %q lacks %q", args, errOut, w)
				}
			}
			if code != tc.code || strings.Contains(out, "started") {
				t.Errorf("%v: code %d, stdout %q; want %d", args, code, out, tc.code)
			}
			if i == 0 {
				first = errOut
			} else if errOut != first {
				t.Errorf("%v says\n%s\nwhere %v says\n%s", args, errOut, commands[0], first)
			}
		}
	}
}
