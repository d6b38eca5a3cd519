// Package docs holds the project's documentation; its tests check that
// the documents stand alone: the scenario API reference has an entry for
// every binding the Lua runtime registers, and every link of the README
// resolves inside the repository.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/luart"
)

// entryRe finds the bindings an entry documents: lab.NAME, m:NAME,
// p:/t:/k:/s:NAME, and c:NAME or x:NAME for any caller (p, t and k).
var entryRe = regexp.MustCompile(`\b(lab\.|[mptkscx]:)([A-Za-z_][A-Za-z0-9_]*)`)

// documented returns the bindings an entry names: in a heading, or at
// the start of the first line after a heading (a signature such as
// "`m:on_hal_call(fn)` — …"). A binding mentioned in passing elsewhere is
// not taken for documented; sections may come in any order, and sections
// the test does not know (other authors' additions) are read the same
// way.
func documented(md string) map[string]bool {
	out := map[string]bool{}
	add := func(line string) {
		for _, m := range entryRe.FindAllStringSubmatch(line, -1) {
			if m[1] == "c:" || m[1] == "x:" {
				for _, r := range []string{"p:", "t:", "k:"} {
					out[r+m[2]] = true
				}
				continue
			}
			out[m[1]+m[2]] = true
		}
	}
	inCode, afterHeading := false, false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			afterHeading = false
			continue
		}
		switch {
		case inCode:
		case strings.HasPrefix(line, "#"):
			add(line)
			afterHeading = true
		case strings.TrimSpace(line) == "":
		case afterHeading:
			if strings.HasPrefix(line, "`") {
				sig, _, _ := strings.Cut(line[1:], "`")
				add(sig)
			}
			afterHeading = false
		}
	}
	return out
}

func TestScenarioAPIReferenceIsComplete(t *testing.T) {
	md, err := os.ReadFile("scenario-api.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := documented(string(md))
	rt := luart.New(luart.Config{})
	defer rt.Close()
	bindings := rt.Bindings()
	if len(bindings) < 50 {
		t.Fatalf("the runtime lists only %d bindings: %v", len(bindings), bindings)
	}
	for _, b := range bindings {
		if !doc[b] {
			t.Errorf("docs/scenario-api.md has no entry (a heading naming it) for %s", b)
		}
	}
	// the rules users trip over are written down
	for _, rule := range []string{"**-1 means every active\n  processor**", "**log2** of the bucket size", "**65536**", "`-list` and `-disasm` cannot\n  work"} {
		if !strings.Contains(string(md), rule) {
			t.Errorf("docs/scenario-api.md lacks %q", rule)
		}
	}
}

func TestDocumentedParsesHeadingsOnly(t *testing.T) {
	got := documented("# Title\n\nm:run in text\n### `m:run{ x }`\n```\n### lab.fake\n```\n## Extra section\n### `c:alloc(size)` and `lab.u64(v)`\n" +
		"### A hook\n\n`m:on_hal_call(fn)` — calls m:passing in text\n\nAlso `m:mentioned()` in passing.\n### Handles\n`x:dup(h)` → a handle\n")
	for _, want := range []string{"m:run", "p:alloc", "t:alloc", "k:alloc", "lab.u64", "m:on_hal_call", "p:dup", "t:dup", "k:dup"} {
		if !got[want] {
			t.Errorf("%s not found in %v", want, got)
		}
	}
	if got["lab.fake"] || got["m:passing"] || got["m:mentioned"] || len(got) != 9 {
		t.Errorf("found too much: %v", got)
	}
}

// linkRe finds Markdown links' targets.
var linkRe = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// pathRe finds backticked repository paths the README sends readers to.
var pathRe = regexp.MustCompile("`((?:docs|examples|scenarios|scripts|spec|core|kernel|halplugins|cmd)/[A-Za-z0-9_./-]*)`")

func TestReadmeLinksResolve(t *testing.T) {
	for _, file := range []string{"../README.md", "scenario-api.md", "hal-plugins.md", "windows-tools.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Dir(file)
		var targets []string
		for _, m := range linkRe.FindAllStringSubmatch(string(b), -1) {
			targets = append(targets, m[1])
		}
		if file == "../README.md" {
			for _, m := range pathRe.FindAllStringSubmatch(string(b), -1) {
				targets = append(targets, m[1])
			}
		}
		for _, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, _, _ := strings.Cut(target, "#")
			path = strings.TrimSuffix(path, "…")
			if strings.ContainsAny(path, "*…") {
				continue // a pattern such as profile-*.pb.gz
			}
			if _, err := os.Stat(filepath.Join(base, path)); err != nil {
				t.Errorf("%s links to %s, which is not in the repository", file, target)
			}
		}
	}
}

// libraryFunc finds the functions a library module exports.
var libraryFunc = regexp.MustCompile(`(?m)^function M\.([A-Za-z_][A-Za-z0-9_]*)\(`)

// Every function of the embedded library (scripts/*.lua) has an entry in
// the reference: a heading "### `module.name(…`".
func TestLibraryReferenceIsComplete(t *testing.T) {
	doc, err := os.ReadFile("scenario-api.md")
	if err != nil {
		t.Fatal(err)
	}
	mods, err := filepath.Glob(filepath.Join("..", "scripts", "*.lua"))
	if err != nil || len(mods) < 4 {
		t.Fatalf("library modules: %v, %v", mods, err)
	}
	n := 0
	for _, path := range mods {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mod := strings.TrimSuffix(filepath.Base(path), ".lua")
		for _, m := range libraryFunc.FindAllStringSubmatch(string(src), -1) {
			n++
			if !strings.Contains(string(doc), "\n### `"+mod+"."+m[1]+"(") {
				t.Errorf("%s.%s (%s) has no entry in docs/scenario-api.md (### `%s.%s(…)`)", mod, m[1], path, mod, m[1])
			}
		}
	}
	if n < 30 {
		t.Errorf("found %d library functions: the pattern no longer finds them", n)
	}
}

// Every function of the re-created tools a scenario calls
// (scripts/tools/: kernrate, wpr, tracelog, their source listing and
// proflab profile's program) has
// an entry in docs/windows-tools.md: a heading "### `module.name(…`".
func TestToolsReferenceIsComplete(t *testing.T) {
	doc, err := os.ReadFile("windows-tools.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, mod := range []string{"kernrate", "wpr", "tracelog", "sources", "profile"} {
		path := filepath.Join("..", "scripts", "tools", mod+".lua")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range libraryFunc.FindAllStringSubmatch(string(src), -1) {
			n++
			if !strings.Contains(string(doc), "\n### `"+mod+"."+m[1]+"(") {
				t.Errorf("%s.%s (%s) has no entry in docs/windows-tools.md (### `%s.%s(…)`)", mod, m[1], path, mod, m[1])
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d tool functions: the pattern no longer finds them", n)
	}
}

// The README's first code block is examples/readme.lua, which the
// scenario tests run: it runs as shown.
func TestReadmeFirstBlockRuns(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile(filepath.Join("..", "examples", "readme.lua"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```lua\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 || block != string(ex) {
		t.Errorf("the README's first Lua block is not examples/readme.lua:\n%s", block)
	}
}
