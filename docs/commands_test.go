package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shellCommands are the proflab command lines of the first ```sh block
// after heading in md: each line that starts with "bin/proflab ", with
// its "\" continuations joined, as its arguments.
func shellCommands(t *testing.T, md, heading string) [][]string {
	t.Helper()
	_, rest, ok := strings.Cut(md, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("no heading %q", heading)
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatalf("no sh block after %q", heading)
	}
	var out [][]string
	line := ""
	for _, l := range strings.Split(block, "\n") {
		line += l
		if strings.HasSuffix(line, "\\") {
			line = strings.TrimSuffix(line, "\\")
			continue
		}
		if f := strings.Fields(line); len(f) > 1 && f[0] == "bin/proflab" {
			out = append(out, f[1:])
		}
		line = ""
	}
	return out
}

// builtProflab is the proflab `make build` built beside its plugins
// (PROFLAB_PLUGIN_PATH, as make test sets it); the test is skipped
// without it.
func builtProflab(t *testing.T) string {
	t.Helper()
	proflab := filepath.Join(os.Getenv("PROFLAB_PLUGIN_PATH"), "proflab")
	if _, err := os.Stat(proflab); os.Getenv("PROFLAB_PLUGIN_PATH") == "" || err != nil {
		t.Skip("needs the built proflab and its plugins: make build, then PROFLAB_PLUGIN_PATH=$PWD/bin go test ./docs")
	}
	return proflab
}

// The commands of docs/windows-tools.md's "Running them" run as written
// from the repository's root: the first kernrate example once named a
// user-mode module (-z server.exe) without -a, and was refused.
func TestWindowsToolsCommandsRun(t *testing.T) {
	proflab := builtProflab(t)
	doc, err := os.ReadFile("windows-tools.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds := shellCommands(t, string(doc), "## Running them")
	if len(cmds) < 4 {
		t.Fatalf("found %d commands: %v", len(cmds), cmds)
	}
	for _, args := range cmds {
		cmd := exec.Command(proflab, args...)
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("bin/proflab %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// docs/hal-plugins.md's timer example is the code `proflab hal new
// --timer` writes, word for word.
func TestTimerHALExampleIsTheTemplate(t *testing.T) {
	doc, err := os.ReadFile("hal-plugins.md")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join("..", "core", "halscaffold", "template", "timer", "main.go.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "**A timer HAL**")
	_, rest, ok2 := strings.Cut(rest, "```go\n")
	block, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 || len(block) < 200 {
		t.Fatalf("no Go block after **A timer HAL** in docs/hal-plugins.md")
	}
	if !strings.Contains(string(tmpl), block) {
		t.Errorf("docs/hal-plugins.md's timer example is not in core/halscaffold/template/timer/main.go.tmpl:\n%s", block)
	}
}

// The worked example of `proflab profile` in README.md and
// docs/workload-import.md prints what they show: each line of their
// transcripts (but the elisions, and the run folder's path) is a line of
// the command's output.
func TestProfileWorkedExampleRuns(t *testing.T) {
	proflab := builtProflab(t)
	out, err := exec.Command(proflab, "profile", filepath.Join("..", "examples", "real-program", "prog.pb.gz"), "--version", "6.1", "--out", filepath.Join(t.TempDir(), "win7")).CombinedOutput()
	if err != nil {
		t.Fatalf("proflab profile: %v\n%s", err, out)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		lines[l] = true
	}
	for _, doc := range []string{filepath.Join("..", "README.md"), "workload-import.md"} {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		const first = "proflab profile: prog.pb.gz on Windows 6.1 x64"
		_, rest, ok := strings.Cut(string(text), first)
		block, _, ok2 := strings.Cut(first+rest, "```")
		if !ok || !ok2 {
			t.Fatalf("%s has no transcript of the worked example", doc)
		}
		n := 0
		for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
			if strings.TrimSpace(l) == "…" || strings.HasPrefix(l, "The comparison in full") {
				continue
			}
			n++
			if !lines[l] {
				t.Errorf("%s shows a line proflab profile does not print:\n%s\nit prints:\n%s", doc, l, out)
			}
		}
		if n < 5 {
			t.Errorf("%s: %d lines of the transcript checked", doc, n)
		}
	}
}

// README's import of a Windows trace runs as written from the
// repository's root: it once named PerfViewData.etl.zip, a file the
// repository does not have (its copy of PerfView's trace is in
// core/etl/testdata), so a newcomer's first .etl import failed.
func TestReadmeWindowsTraceImportRuns(t *testing.T) {
	proflab := builtProflab(t)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "bin/proflab workload import ") && strings.Contains(l, ".etl") {
			args = strings.Fields(l)[1:]
			break
		}
	}
	if args == nil {
		t.Fatal("README has no bin/proflab workload import of an .etl trace")
	}
	for i := range args {
		if args[i] == "-o" && i+1 < len(args) {
			args[i+1] = filepath.Join(t.TempDir(), args[i+1]) // not into the repository
		}
	}
	cmd := exec.Command(proflab, args...)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bin/proflab %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if !strings.Contains(string(out), "4900 samples") {
		t.Errorf("bin/proflab %s: want the spec's 4,900 samples of Test.x86.exe:\n%s", strings.Join(args, " "), out)
	}
}
