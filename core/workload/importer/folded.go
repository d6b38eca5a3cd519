package importer

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

// foldedFormat is folded stacks.
var foldedFormat = format{
	name:  Folded,
	about: "folded stacks, `root;caller;leaf COUNT` lines (FlameGraph's stackcollapse scripts, many profilers' collapsed output)",
	detect: func(c *content) (any, bool) {
		return nil, c.text && isFolded(c.lines)
	},
	read: func(r *reading) error { return importFolded(r.name, r.data, r.opt, r.m, r.im) },
}

var foldedLine = regexp.MustCompile(`^\S.*\s-?[0-9][0-9.eE+]*$`)

// isFolded says whether every line looks like a folded stack: text and a
// number at the end (negative or odd numbers too, so that the importer
// reports them with their line).
func isFolded(lines []string) bool {
	for _, l := range lines {
		if !foldedLine.MatchString(l) {
			return false
		}
	}
	return len(lines) > 0
}

// importFolded fills m from folded stacks: `root;…;leaf COUNT` lines.
// Every frame is a function named by its text exactly (a process name
// that stackcollapse-perf put first is a frame too); frames ending in
// "_[k]" are kernel functions. The process is one thread, busy 1.
func importFolded(name string, data []byte, opt Options, m *model, im *Imported) error {
	pname := opt.Process
	if pname == "" {
		pname = filepath.Base(name)
	}
	th := m.proc("", pname).thread("")
	im.SampleType, im.PeriodUnit = "count", ""
	var zero, idle int64
	var total float64
	var frames []frame
	for ln := 1; len(data) > 0; ln++ {
		var raw []byte
		raw, data, _ = bytes.Cut(data, []byte{'\n'})
		line := strings.TrimSpace(string(raw))
		if line == "" {
			continue
		}
		stack, count, err := parseFoldedLine(line)
		if err != nil {
			return &Error{Source: name, Line: ln, Msg: err.Error()}
		}
		if count == 0 {
			zero++
			continue
		}
		parts := strings.Split(stack, ";")
		if opt.DropIdle && isIdle(parts[len(parts)-1]) {
			idle++
			continue
		}
		frames = frames[:0]
		for i, p := range parts { // root first: functions in order of first appearance
			if p == "" {
				return &Error{Source: name, Line: ln, Msg: fmt.Sprintf("frame %d of %q is empty (two ';' in a row): fix the line", i+1, clip(stack))}
			}
			img := m.image("u", FoldedImage, false)
			if strings.HasSuffix(p, "_[k]") {
				img = m.image("k", FoldedKernelImage, true)
			}
			frames = append(frames, frame{f: m.fn(img, p)})
		}
		slices.Reverse(frames) // leaf first
		m.add(th, frames, count)
		total += count
		im.Samples++
	}
	if zero > 0 {
		m.note("%d lines with a count of 0 were skipped", zero)
	}
	if idle > 0 {
		m.note("%d lines whose leaf is an idle function were dropped (--drop-idle)", idle)
	}
	if im.Samples == 0 {
		return &Error{Source: name, Msg: "no stack with a positive count: there is nothing to import"}
	}
	if total >= MaxFoldedCount {
		return &Error{Source: name, Msg: fmt.Sprintf("the counts add up to %g, past 2^53 where sums stop being exact: scale the counts down", total)}
	}
	im.Samples = int64(total)
	return nil
}

// parseFoldedLine splits a line into its stack and count (the text after
// the last space or tab).
func parseFoldedLine(line string) (string, float64, error) {
	i := strings.LastIndexAny(line, " \t")
	if i < 0 {
		return "", 0, fmt.Errorf("%q has no count: a folded line is `frame;frame;frame COUNT`", clip(line))
	}
	stack, c := strings.TrimSpace(line[:i]), line[i+1:]
	count, err := strconv.ParseFloat(c, 64)
	switch {
	case err != nil && strings.HasPrefix(c, "-"):
		return "", 0, fmt.Errorf("count %q is negative: counts are numbers of samples, >= 0", c)
	case err != nil || math.IsNaN(count) || math.IsInf(count, 0) || strings.ContainsAny(c, "xXpPeEnN_"):
		return "", 0, fmt.Errorf("count %q is not a number of samples: a folded line ends with a count such as 42", clip(c))
	case count < 0:
		return "", 0, fmt.Errorf("count %q is negative: counts are numbers of samples, >= 0", c)
	case count >= MaxFoldedCount:
		return "", 0, fmt.Errorf("count %q is too large (2^53 or more, where sums stop being exact): scale the counts down", c)
	case stack == "":
		return "", 0, fmt.Errorf("%q has a count but no frames", clip(line))
	}
	return stack, count, nil
}
