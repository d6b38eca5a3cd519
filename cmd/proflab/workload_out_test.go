package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `workload import P -o P` replaced the profile with its TOML (exit 0),
// and -o over any file was silent (issue 29 case 7). The profile itself
// is refused as -o, through a symbolic or a hard link too, even with
// --force; another existing file needs --force, as run --out does.
func TestWorkloadImportRefusesItsProfileAsOutput(t *testing.T) {
	dir := t.TempDir()
	profile := "app;main;work 30\napp;main 10\n"
	p := writeScenario(t, dir, "app.folded", profile)
	sym := filepath.Join(dir, "sym.toml")
	hard := filepath.Join(dir, "hard.toml")
	if err := os.Symlink(p, sym); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(p, hard); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{p, sym, hard} {
		for _, force := range []bool{false, true} {
			args := []string{"workload", "import", p, "-o", out}
			if force {
				args = append(args, "--force")
			}
			code, _, errOut := runCLI(args...)
			if code != ExitUsage || !strings.Contains(errOut, "-o "+out+": it is the profile being imported ("+p+"): give another file") {
				t.Errorf("%v: code %d, stderr %q; want 2, the profile refused as the output", args, code, errOut)
			}
		}
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != profile {
		t.Fatalf("the profile now holds %q (err %v)", b, err)
	}
	// standard input read from the output file
	in, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, errOut bytes.Buffer
	cmd := newRootCmd(&out, &errOut)
	cmd.SetIn(in)
	cmd.SetArgs([]string{"workload", "import", "-", "-o", hard, "--force"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "it is the profile being imported (standard input)") {
		t.Errorf("import - < P -o P: %v", err)
	}

	// Another existing file: refused without --force, replaced with it.
	other := writeScenario(t, dir, "other.toml", "# mine\n")
	code, _, errOut2 := runCLI("workload", "import", p, "-o", other)
	if code != ExitUsage || !strings.Contains(errOut2, "-o "+other+": the file exists: give a new file, or --force to replace it") {
		t.Errorf("-o an existing file: code %d, stderr %q", code, errOut2)
	}
	if b, _ := os.ReadFile(other); string(b) != "# mine\n" {
		t.Errorf("the existing file was changed: %q", b)
	}
	if code, _, errOut := runCLI("workload", "import", p, "-o", other, "--force"); code != ExitOK {
		t.Errorf("--force: code %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(other); !strings.HasPrefix(string(b), "# Imported by") {
		t.Errorf("--force did not replace the file: %q", b)
	}
}

// `workload import -o nodir/x.toml` named its hidden temporary file
// (issue 29 case 23): errors name the user's path, before the import.
func TestWorkloadImportNamesTheUsersPath(t *testing.T) {
	dir := t.TempDir()
	p := writeScenario(t, dir, "app.folded", "app;main;work 30\n")
	out := filepath.Join(dir, "nodir", "x.toml")
	code, _, errOut := runCLI("workload", "import", p, "-o", out)
	if code != ExitUsage || !strings.Contains(errOut, "-o "+out+": the folder "+filepath.Join(dir, "nodir")+" does not exist: create it first") ||
		strings.Contains(errOut, ".x.toml.") {
		t.Errorf("code %d, stderr %q; want 2 and the folder named", code, errOut)
	}
}

// `workload import` has a memory budget (issue 29 case 16): a gzip bomb
// is refused before it is inflated, a profile larger than the budget
// reads is refused at once, and an import that outgrows the budget is
// stopped; nothing is written.
func TestWorkloadImportMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	gzipped := func(name string, data []byte) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// 1000 MiB of folded lines, as the trailer of a small gzip says
	bomb := gzipped("bomb.folded.gz", []byte("main;work 1\n"))
	b, _ := os.ReadFile(bomb)
	binary.LittleEndian.PutUint32(b[len(b)-4:], 1000<<20)
	os.WriteFile(bomb, b, 0o644)
	var distinct strings.Builder
	for i := 0; distinct.Len() < 8<<20; i++ {
		fmt.Fprintf(&distinct, "main;f%d;g%d %d\n", i%1000, i, i%7+1)
	}
	big := writeScenario(t, dir, "distinct.folded", distinct.String())
	out := filepath.Join(dir, "out.toml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{bomb}, "the gzip trailer says the content inflates to at least 1000 MiB, more than the 256 MiB an import reads"},
		{[]string{big, "--memory", "12MiB"}, "the profile has 8.0 MiB, more than the 4 MiB an import reads: an import holds at least 3 bytes of memory per byte of profile, so a memory budget of 12 MiB reads at most 4 MiB: raise the budget (--memory)"},
		// 8 MiB of distinct stacks hold some 300 MiB: the stacks counted
		// as they are allocated, or the heap's watchdog, stop it
		{[]string{big, "--memory", "32MiB"}, "memory budget of 32 MiB"},
	} {
		code, _, errOut := runCLI(append([]string{"workload", "import", "-o", out}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s was written", c.args, out)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, ".out.toml*")); len(m) > 0 {
			t.Errorf("%v: left %v", c.args, m)
		}
	}
	if code, _, errOut := runCLI("workload", "import", "-o", out, big, "--memory", "0"); code != ExitOK {
		t.Errorf("--memory 0 (none): code %d: %s", code, errOut)
	}
}
