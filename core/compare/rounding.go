package compare

import (
	"fmt"
	"strconv"
	"strings"
)

// RoundingGap is how close (in bytes) two functions named by address
// must lie for a difference between them to be taken for bucket
// rounding: a profile's buckets are 4 bytes at the least, and a bucket
// is charged to the function at its start, so of two functions a few
// bytes apart (a binary without symbols, whose "functions" are the
// sampled addresses) one may get the other's samples.
const RoundingGap = 16

// addressName splits a function named by its address, "image+0xHEX"
// (an import without symbols names a function so), into the image and
// the offset; ok is false for any other name.
func addressName(name string) (image string, off uint64, ok bool) {
	i := strings.LastIndex(name, "+0x")
	if i <= 0 {
		return "", 0, false
	}
	off, err := strconv.ParseUint(name[i+3:], 16, 64)
	if err != nil {
		return "", 0, false
	}
	return name[:i], off, true
}

// roundingSuspects are the functions that differ (c.Functions' Differ
// rows) and are named by address with another function of the comparison
// within RoundingGap bytes of them, in the rows' order, and how many
// functions differ in all.
func roundingSuspects(c Comparison) (suspects []string, differ int) {
	offsets := map[string][]uint64{}
	for _, r := range c.Functions {
		if im, off, ok := addressName(r.Name); ok {
			offsets[im] = append(offsets[im], off)
		}
	}
	for _, r := range c.Functions {
		if !r.Differ {
			continue
		}
		differ++
		im, off, ok := addressName(r.Name)
		if !ok {
			continue
		}
		for _, o := range offsets[im] {
			if o != off && max(o, off)-min(o, off) < RoundingGap {
				suspects = append(suspects, r.Name)
				break
			}
		}
	}
	return suspects, differ
}

// roundingSummary says, for the summary of a program's comparisons, in
// which images bucket rounding is the likely cause of the difference
// (the comparisons with a Rounding note), once: "" when in none.
func roundingSummary(cs []Comparison) string {
	var where, names []string
	for _, c := range cs {
		if c.Rounding == "" {
			continue
		}
		suspects, differ := roundingSuspects(c)
		where = append(where, fmt.Sprintf("in %s %d of the %d functions that differ", imageOf(c), len(suspects), differ))
		names = append(names, suspects...)
	}
	if len(where) == 0 {
		return ""
	}
	more := ""
	if len(names) > 3 {
		names, more = names[:3], ", …"
	}
	return fmt.Sprintf("%s (%s%s) are named by their address (the source has no symbols for them) and lie within %d bytes of another: %s",
		strings.Join(where, ", "), strings.Join(names, ", "), more, RoundingGap, roundingWhy)
}

// allRounding says whether every comparison that differs has bucket
// rounding for its likely cause.
func allRounding(cs []Comparison) bool {
	for _, c := range cs {
		if c.Outcome == Differ && c.Rounding == "" {
			return false
		}
	}
	return true
}

// roundingWhy is what bucket rounding is and what to do about it.
const roundingWhy = "a profile's bucket (4 bytes at the least) is charged to the function at its start, so one of two such neighbours gets the other's samples. That is bucket rounding, how NT's profile sees them, not a difference in the program: compare the modules' shares, or name the functions with a symbol listing (--symbols FILE, docs/etl.md)"

// RoundingNote says, when it is the likely cause of a difference, that
// the functions that differ are addresses a few bytes apart, whose
// samples NT's buckets charge to a neighbour: at least half of the
// functions that differ are such. "" otherwise.
func RoundingNote(c Comparison) string {
	suspects, differ := roundingSuspects(c)
	if differ == 0 || 2*len(suspects) < differ {
		return ""
	}
	names := suspects
	more := ""
	if len(names) > 3 {
		names, more = names[:3], ", …"
	}
	return fmt.Sprintf("%d of the %d functions that differ (%s%s) are named by their address (the source has no symbols for them) and lie within %d bytes of another: %s",
		len(suspects), differ, strings.Join(names, ", "), more, RoundingGap, roundingWhy)
}
