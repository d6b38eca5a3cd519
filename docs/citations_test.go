package docs

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/proflab/proflab/core/sweep/report"
)

// The documents stand alone: every Markdown file a tracked file cites
// (in a Go or Lua comment, a Markdown link, an error message, a TOML
// comment) is in the repository, every #anchor on such a citation names a
// heading of that file, and every relative Markdown link resolves. A user
// who reads "see docs/reference/intervals.md#ntsetintervalprofile" in a
// doc comment or an error can open it.

// outputNames are .md names proflab writes, or its tests create, rather
// than cites: they are files of a run's or a sweep's output folder.
var outputNames = map[string]string{
	report.SummaryName: "a sweep's summary (core/sweep/report)",
	"notes.md":         "a user's own file a sweep test puts in an output folder (core/sweep/outdir_test.go)",
}

// citeRe finds a cited Markdown file: a path ending in .md, with an
// optional #anchor.
var citeRe = regexp.MustCompile(`(?:\.\.?/)*(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.md\b(?:#[\p{L}\p{N}_-]+)?`)

// urlRe finds URLs, whose paths are other sites' and not checked.
var urlRe = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s)>"'\x60\]]+`)

// sectionRe finds a section sign followed by a number: a citation of a
// numbered section, which must say what it is a section of.
var sectionRe = regexp.MustCompile(`§\s?[0-9]`)

// repo is the repository as a citation checker sees it: its files (those
// git would commit: tracked, or new and not ignored), their folders, and
// the headings of its Markdown files.
type repo struct {
	root    string
	files   map[string]bool // slash-separated paths from the root
	dirs    map[string]bool
	byBase  map[string][]string // base name → Markdown files with it
	anchors map[string]map[string]bool
}

func loadRepo(t *testing.T) *repo {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	r := &repo{root: root, files: map[string]bool{}, dirs: map[string]bool{"": true}, byBase: map[string][]string{}, anchors: map[string]map[string]bool{}}
	names, err := gitFiles(root)
	if err != nil {
		t.Logf("not a git checkout (%v): walking the folder instead", err)
		names = walkFiles(t, root)
	}
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(name))); err != nil {
			continue // deleted in the work tree
		}
		r.files[name] = true
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			r.dirs[d] = true
		}
		if strings.HasSuffix(name, ".md") {
			r.byBase[path.Base(name)] = append(r.byBase[path.Base(name)], name)
		}
	}
	return r
}

// gitFiles lists the files git would commit: tracked ones and new ones
// that are not ignored.
func gitFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range strings.Split(string(out), "\x00") {
		if n != "" {
			names = append(names, n)
		}
	}
	return names, nil
}

func walkFiles(t *testing.T, root string) []string {
	var names []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		names = append(names, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// headings returns the anchors a Markdown file's headings get on GitHub,
// and the explicit ones of <a name> and <a id> tags.
func (r *repo) headings(file string) map[string]bool {
	if a, ok := r.anchors[file]; ok {
		return a
	}
	b, _ := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(file)))
	a := anchorsOf(string(b))
	r.anchors[file] = a
	return a
}

var (
	atxRe     = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextRe  = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	htmlIDRe  = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	fenceRe   = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	imageRe   = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	inlineRe  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	tagRe     = regexp.MustCompile(`<[^>]+>`)
	emphUnder = regexp.MustCompile(`(^|[^\p{L}\p{N}])_+([^_]+?)_+([^\p{L}\p{N}]|$)`)
)

// anchorsOf finds every anchor of a Markdown document.
func anchorsOf(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	add := func(text string) {
		s := slug(headingText(text))
		if n, dup := seen[s]; dup {
			seen[s] = n + 1
			for {
				alt := fmt.Sprintf("%s-%d", s, seen[s])
				if _, taken := seen[alt]; !taken {
					seen[alt] = 0
					out[alt] = true
					break
				}
				seen[s]++
			}
			return
		}
		seen[s] = 0
		out[s] = true
	}
	var fence string
	prev := ""
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := fenceRe.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1][:1]
			case strings.HasPrefix(m[1], fence):
				fence = ""
			}
			prev = ""
			continue
		}
		if fence != "" {
			continue
		}
		for _, m := range htmlIDRe.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		switch m := atxRe.FindStringSubmatch(line); {
		case m != nil:
			add(m[2])
			prev = ""
			continue
		case setextRe.MatchString(line) && paragraphLine(prev):
			add(prev)
			prev = ""
			continue
		}
		prev = line
	}
	return out
}

// orderedRe finds an ordered list item.
var orderedRe = regexp.MustCompile(`^\d+[.)]\s`)

// paragraphLine reports whether a line can be the text of a setext
// heading (not blank, not a list item, table row, quote or heading).
func paragraphLine(s string) bool {
	t := strings.TrimSpace(s)
	return t != "" && !strings.ContainsAny(t[:1], "#|>-*+") && !orderedRe.MatchString(t)
}

// headingText is a heading's text as GitHub renders it: code spans keep
// their content, links and images their text, tags and emphasis go.
func headingText(s string) string {
	s = imageRe.ReplaceAllString(s, "$1")
	s = inlineRe.ReplaceAllString(s, "$1")
	s = tagRe.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "`", "")
	for {
		t := emphUnder.ReplaceAllString(s, "$1$2$3")
		if t == s {
			break
		}
		s = t
	}
	return strings.TrimSpace(s)
}

// slug is GitHub's heading anchor (github-slugger): lower case, every
// character that is not a letter, digit, mark, "_", "-" or space
// dropped, spaces made hyphens.
func slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// resolve finds the repository file or folder a citation in file names:
// relative to the citing file's folder, or to the repository's root; a
// bare name also matches a Markdown file of that name anywhere, when it
// is the only one. It returns the slash path, or "" when nothing matches.
func (r *repo) resolve(file, target string, rootToo bool) string {
	candidates := []string{path.Join(path.Dir(file), target)}
	if rootToo {
		candidates = append(candidates, path.Clean(target))
	}
	for _, c := range candidates {
		if strings.HasPrefix(c, "../") || c == ".." {
			continue // outside the repository
		}
		if c == "." {
			c = ""
		}
		if r.files[c] || r.dirs[c] {
			return c
		}
	}
	if rootToo && !strings.Contains(target, "/") {
		if all := r.byBase[target]; len(all) == 1 {
			return all[0]
		}
	}
	return ""
}

// checked reports whether a file's text is read for citations: text
// files outside test data (whose paths belong to the profiled programs,
// not to proflab).
func checked(name string, b []byte) bool {
	if strings.HasPrefix(name, "testdata/") || strings.Contains(name, "/testdata/") {
		return false
	}
	if slices.Contains([]string{".gz", ".png", ".jpg", ".pb", ".sum"}, path.Ext(name)) {
		return false
	}
	return !bytes.Contains(b[:min(len(b), 8000)], []byte{0})
}

// A citation problem: where, and what is wrong.
type problem struct {
	file string
	line int
	msg  string
}

func (p problem) String() string { return fmt.Sprintf("%s:%d: %s", p.file, p.line, p.msg) }

// citations checks one file's text: every .md it names, and in a
// Markdown file every relative link.
func (r *repo) citations(name, text string) []problem {
	var out []problem
	fail := func(line int, format string, args ...any) {
		out = append(out, problem{name, line, fmt.Sprintf(format, args...)})
	}
	// a Markdown file's links are checked as links, relative to its folder
	var links []link
	linked := map[int]map[string]bool{}
	if strings.HasSuffix(name, ".md") {
		links = markdownLinks(text)
		for _, l := range links {
			if linked[l.line] == nil {
				linked[l.line] = map[string]bool{}
			}
			linked[l.line][l.target] = true
		}
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		plain := urlRe.ReplaceAllStringFunc(line, func(u string) string { return strings.Repeat(" ", len(u)) })
		for _, cite := range citeRe.FindAllString(plain, -1) {
			if linked[i+1][cite] {
				continue
			}
			target, anchor, _ := strings.Cut(cite, "#")
			if _, ok := outputNames[target]; ok {
				continue
			}
			got := r.resolve(name, target, true)
			if got == "" {
				fail(i+1, "cites %s, which is not in the repository", cite)
				continue
			}
			if anchor != "" && !r.headings(got)[anchor] {
				fail(i+1, "cites %s, but %s has no heading with the anchor #%s", cite, got, anchor)
			}
		}
		if sectionRe.MatchString(plain) && !strings.Contains(plain, ".md") && !strings.Contains(plain, "issue") && !strings.Contains(plain, "manual") {
			fail(i+1, "cites a numbered section (%s) without saying of what: name the document (docs/reference/…md#…)", sectionRe.FindString(plain))
		}
	}
	for _, l := range links {
		{
			target, anchor, _ := strings.Cut(l.target, "#")
			if target == "" {
				if !r.headings(name)[anchor] {
					fail(l.line, "links to #%s, which is no heading of this file", anchor)
				}
				continue
			}
			got := r.resolve(name, target, false)
			if got == "" {
				fail(l.line, "links to %s, which is not in the repository (relative to %s)", l.target, path.Dir(name))
				continue
			}
			if anchor != "" && strings.HasSuffix(got, ".md") && !r.headings(got)[anchor] {
				fail(l.line, "links to %s, but %s has no heading with the anchor #%s", l.target, got, anchor)
			}
		}
	}
	return out
}

// A Markdown link's target and line.
type link struct {
	target string
	line   int
}

var (
	mdLinkRe  = regexp.MustCompile(`\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)`)
	refDefRe  = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(\S+)`)
	codeRunRe = regexp.MustCompile("`+[^`]*`+")
	schemeRe  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// markdownLinks returns a Markdown document's relative link targets
// (inline links and images, and reference definitions), leaving out code
// blocks and code spans.
func markdownLinks(md string) []link {
	var out []link
	var fence string
	for i, line := range strings.Split(md, "\n") {
		if m := fenceRe.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1][:1]
			case strings.HasPrefix(m[1], fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		line = codeRunRe.ReplaceAllString(line, "")
		var targets []string
		for _, m := range mdLinkRe.FindAllStringSubmatch(line, -1) {
			targets = append(targets, strings.Trim(m[1], "<>"))
		}
		if m := refDefRe.FindStringSubmatch(line); m != nil {
			targets = append(targets, strings.Trim(m[1], "<>"))
		}
		for _, t := range targets {
			if schemeRe.MatchString(t) {
				continue // https:, mailto:
			}
			out = append(out, link{t, i + 1})
		}
	}
	return out
}

func TestCitationsResolve(t *testing.T) {
	r := loadRepo(t)
	if !r.files["docs/citations_test.go"] || !r.files["README.md"] {
		t.Fatalf("the repository's file list lacks this test or the README: %d files", len(r.files))
	}
	names := make([]string, 0, len(r.files))
	for n := range r.files {
		names = append(names, n)
	}
	slices.Sort(names)
	var problems []problem
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(name)))
		if err != nil || !checked(name, b) {
			continue
		}
		problems = append(problems, r.citations(name, string(b))...)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.Logf("%d citations do not resolve; the reference chapters are in docs/reference/ (docs/reference/README.md lists them)", len(problems))
	}
}

// The anchors GitHub gives headings, on examples from this repository's
// documents and GitHub's own rules (duplicates numbered, code spans and
// links reduced to their text, punctuation dropped, case folded).
func TestAnchorsOf(t *testing.T) {
	md := "# The NT profiling reference\n" +
		"## What changed in which version\n" +
		"### `c:NtCreateProfile(ProfileHandlePtr, Process)`\n" +
		"### Per-machine HAL settings (\u00a74.4; items 95–97)\n" +
		"## Outputs: accuracy against the truth\n" +
		"### PROCESSOR_PROFILE_CONTROL_AREA\n" +
		"## The HAL's profile interfaces\n" +
		"### EventTraceTimeProfileInformation (0x03)\n" +
		"## [Linked](elsewhere) _emphasis_ and **strong**\n" +
		"## Repeat\n## Repeat\n## Repeat\n" +
		"```\n## not a heading\n```\n" +
		"Setext heading\n---\n\n" +
		"- a list item\n---\n" +
		"<a name=\"explicit\"></a>\n" +
		"#### Closed heading ###\n"
	got := anchorsOf(md)
	want := []string{
		"the-nt-profiling-reference", "what-changed-in-which-version",
		"cntcreateprofileprofilehandleptr-process", "per-machine-hal-settings-44-items-9597",
		"outputs-accuracy-against-the-truth", "processor_profile_control_area",
		"the-hals-profile-interfaces", "eventtracetimeprofileinformation-0x03",
		"linked-emphasis-and-strong", "repeat", "repeat-1", "repeat-2",
		"setext-heading", "explicit", "closed-heading",
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("no anchor %q in %v", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("found %d anchors, want %d: %v", len(got), len(want), got)
	}
}

// The checker finds what it is for: a missing file, a missing anchor, a
// link that leaves its folder wrongly, a section of no document; and
// accepts what resolves, including output names and other sites' URLs.
func TestCitationProblems(t *testing.T) {
	md := ".md"
	r := &repo{
		root:    t.TempDir(),
		files:   map[string]bool{"docs/a" + md: true, "docs/sub/b" + md: true, "kernel/k.go": true, "README" + md: true},
		dirs:    map[string]bool{"": true, "docs": true, "docs/sub": true, "kernel": true},
		byBase:  map[string][]string{"a" + md: {"docs/a" + md}, "b" + md: {"docs/sub/b" + md}, "README" + md: {"README" + md}},
		anchors: map[string]map[string]bool{"docs/a" + md: {"intro": true}, "docs/sub/b" + md: {"top": true}, "README" + md: {}},
	}
	goText := "// See docs/a" + md + "#intro and docs/a" + md + "#nowhere,\n" +
		"// spec/gone" + md + ", a" + md + " (found by name), " + report.SummaryName + " (an output),\n" +
		"// https://example.com/x/missing" + md + " and nt-profiling \u00a74.4.\n" +
		"// issue 28 \u00a75 and the Lua 5.1 manual (\u00a75.4) say what they cite.\n"
	var msgs []string
	for _, p := range r.citations("kernel/k.go", goText) {
		msgs = append(msgs, p.String())
	}
	wantGo := []string{
		"kernel/k.go:1: cites docs/a" + md + "#nowhere, but docs/a" + md + " has no heading with the anchor #nowhere",
		"kernel/k.go:2: cites spec/gone" + md + ", which is not in the repository",
		"kernel/k.go:3: cites a numbered section (\u00a74) without saying of what: name the document (docs/reference/…md#…)",
	}
	if !slices.Equal(msgs, wantGo) {
		t.Errorf("Go comment problems:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(wantGo, "\n"))
	}

	mdText := "[ok](sub/b" + md + "#top) [bad anchor](sub/b" + md + "#gone) [self](#intro) [no self](#outro)\n" +
		"[up](../README" + md + ") [missing](c" + md + ") [dir](sub/) [site](https://example.com/) `[code](x" + md + ")`\n" +
		"```\n[fenced](y" + md + ")\n```\n" +
		"[ref]: ../kernel/k.go\n[bad ref]: ../kernel/none.go\n"
	msgs = nil
	for _, p := range r.citations("docs/a"+md, mdText) {
		msgs = append(msgs, p.String())
	}
	wantMD := []string{
		"docs/a" + md + ":1: links to sub/b" + md + "#gone, but docs/sub/b" + md + " has no heading with the anchor #gone",
		"docs/a" + md + ":1: links to #outro, which is no heading of this file",
		"docs/a" + md + ":2: links to c" + md + ", which is not in the repository (relative to docs)",
		"docs/a" + md + ":7: links to ../kernel/none.go, which is not in the repository (relative to docs)",
		// code spans and blocks hold no links, but a file they name is
		// still a citation
		"docs/a" + md + ":2: cites x" + md + ", which is not in the repository",
		"docs/a" + md + ":4: cites y" + md + ", which is not in the repository",
	}
	slices.Sort(msgs)
	slices.Sort(wantMD)
	if !slices.Equal(msgs, wantMD) {
		t.Errorf("Markdown problems:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(wantMD, "\n"))
	}
}
