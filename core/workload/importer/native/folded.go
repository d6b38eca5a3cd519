package native

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// MaxFoldedCount is the largest count a folded line may have: 2^53, up to
// which float64 sums stay exact.
const MaxFoldedCount = 1 << 53

// Folded stacks' synthetic images.
const (
	// FoldedImage holds the user-mode frames, FoldedKernelImage the
	// frames stackcollapse marks as kernel ("_[k]" suffix).
	FoldedImage       = "folded"
	FoldedKernelImage = "folded-kernel"
)

// Folded is folded stacks.
var Folded = &profread.Format{
	Name:  "folded",
	About: "folded stacks, `root;caller;leaf COUNT` lines (FlameGraph's stackcollapse scripts, many profilers' collapsed output)",
	Detect: func(c *profread.Content) (any, bool) {
		return nil, c.Text && isFolded(c.Lines)
	},
	Read: importFolded,
}

var foldedLine = regexp.MustCompile(`^\S.*\s-?[0-9][0-9.eE+]*$`)

// isFolded says whether the lines look like folded stacks: text and a
// number at the end (negative or odd numbers too, so that the importer
// reports them with their line), for the first line that is not a `//`
// comment and at least half of them (stacks are found with comments
// and broken lines, which the import skips with a note). A `key = 1`
// line is TOML's, not a stack.
func isFolded(lines []string) bool {
	var n, ok int
	for _, l := range lines {
		if strings.HasPrefix(l, "//") {
			continue
		}
		n++
		if foldedLine.MatchString(l) && !tomlKey.MatchString(l) {
			ok++
		} else if n == 1 {
			return false
		}
	}
	return ok > 0 && 2*ok >= n
}

// tomlKey is a TOML key's line with a number value.
var tomlKey = regexp.MustCompile(`^[\w.-]+\s*=\s*\S+$`)

// importFolded fills m from folded stacks: `root;…;leaf COUNT` lines.
// Every frame is a function named by its text exactly (a process name
// that stackcollapse-perf put first is a frame too); frames ending in
// "_[k]" are kernel functions. The process is one thread, busy 1.
// Comment lines (`#`, `//`) are skipped; empty frames (`a;;b`) are
// dropped from their stack; a line that is not a stack with a count is
// skipped: notes count each and name the first.
func importFolded(r *profread.Reading) error {
	name, data, opt, m, im := r.Name, r.Data, r.Options, r.Model, r.Sampling
	pname := opt.Process
	if pname == "" {
		pname = filepath.Base(name)
	}
	th := m.Process("", pname).Thread("")
	im.SampleType, im.PeriodUnit = "count", ""
	var zero, idle int64
	var comments, empty, invalid int
	var firstEmpty int
	var firstInvalid error
	var total float64
	var frames []profmodel.Frame
	for ln := 1; len(data) > 0; ln++ {
		if err := profmodel.Stopped(r.Ctx, ln); err != nil {
			return err
		}
		var raw []byte
		raw, data, _ = bytes.Cut(data, []byte{'\n'})
		line := strings.TrimSpace(string(raw))
		if line == "" {
			continue
		}
		if line[0] == '#' || strings.HasPrefix(line, "//") {
			comments++
			continue
		}
		stack, count, err := parseFoldedLine(line)
		if err != nil {
			if invalid == 0 {
				firstInvalid = r.LineErrorf(ln, "%v", err)
			}
			invalid++
			continue
		}
		if count == 0 {
			zero++
			continue
		}
		parts := strings.Split(stack, ";")
		if slices.Contains(parts, "") {
			if empty == 0 {
				firstEmpty = ln
			}
			empty++
			parts = slices.DeleteFunc(parts, func(p string) bool { return p == "" })
		}
		if opt.DropIdle && profmodel.IsIdle(parts[len(parts)-1]) {
			idle++
			continue
		}
		frames = frames[:0]
		for _, p := range parts { // root first: functions in order of first appearance
			img := m.Image("u", FoldedImage, false)
			if strings.HasSuffix(p, "_[k]") {
				img = m.Image("k", FoldedKernelImage, true)
			}
			frames = append(frames, profmodel.Frame{Func: m.Func(img, p)})
		}
		slices.Reverse(frames) // leaf first
		m.Add(th, frames, count)
		total += count
		im.Samples++
	}
	if comments > 0 {
		m.Note("%d comment lines (# or //) were skipped", comments)
	}
	if invalid > 0 {
		m.Note("%d lines that are not a stack with a count were skipped (the first: %v)", invalid, firstInvalid)
	}
	if empty > 0 {
		m.Note("%d stacks had empty frames (two ';' in a row, the first at line %d): the empty frames were dropped", empty, firstEmpty)
	}
	if zero > 0 {
		m.Note("%d lines with a count of 0 were skipped", zero)
	}
	if idle > 0 {
		m.Note("%d lines whose leaf is an idle function were dropped (--drop-idle)", idle)
	}
	if im.Samples == 0 {
		if firstInvalid != nil && zero == 0 && idle == 0 {
			return firstInvalid
		}
		return r.Errorf("no stack with a positive count: there is nothing to import")
	}
	if total >= MaxFoldedCount {
		return r.Errorf("the counts add up to %g, past 2^53 where sums stop being exact: scale the counts down", total)
	}
	im.Samples = int64(total)
	return nil
}

// foldedCount is a count as folded stacks write it: a decimal number
// of samples, a fraction allowed (weights scaled by a tool).
var foldedCount = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// parseFoldedLine splits a line into its stack and count (the text after
// the last space or tab).
func parseFoldedLine(line string) (string, float64, error) {
	i := strings.LastIndexAny(line, " \t")
	if i < 0 {
		return "", 0, fmt.Errorf("%q has no count: a folded line is `frame;frame;frame COUNT`", profread.Clip(line))
	}
	stack, c := strings.TrimSpace(line[:i]), line[i+1:]
	switch {
	case strings.HasPrefix(c, "-") && foldedCount.MatchString(c[1:]):
		return "", 0, fmt.Errorf("count %q is negative: counts are numbers of samples, >= 0", c)
	case !foldedCount.MatchString(c):
		return "", 0, fmt.Errorf("count %q is not a number of samples: a folded line ends with a count such as 42", profread.Clip(c))
	case strings.Trim(stack, ";") == "":
		return "", 0, fmt.Errorf("%q has a count but no frames", profread.Clip(line))
	}
	count, err := strconv.ParseFloat(c, 64)
	if err != nil || count >= MaxFoldedCount {
		return "", 0, fmt.Errorf("count %q is too large (2^53 or more, where sums stop being exact): scale the counts down", c)
	}
	return stack, count, nil
}
