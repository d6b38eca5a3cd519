package profread

import (
	"bytes"
	"context"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// EachLine calls fn with every line of data: its number (from 1) and its
// text without the "\n" and a trailing "\r" (CRLF files). It stops at
// fn's first error and returns it, or soon after ctx ends, returning its
// cause (see profmodel.Stopped).
func EachLine(ctx context.Context, data []byte, fn func(ln int, line string) error) error {
	for ln := 1; len(data) > 0; ln++ {
		if err := profmodel.Stopped(ctx, ln); err != nil {
			return err
		}
		var raw []byte
		raw, data, _ = bytes.Cut(data, []byte{'\n'})
		if err := fn(ln, strings.TrimSuffix(string(raw), "\r")); err != nil {
			return err
		}
	}
	return nil
}

// IndentPath is the path from the root of an indented tree (a call tree
// printed one row per line, children indented under their parent) to
// the row read last.
type IndentPath[T any] struct {
	// Rows are the path's rows, the root first: Rows[d] is the row at
	// depth d, the parent of Rows[d+1].
	Rows []T
}

// Enter makes row the path's row at depth (0 is a root), dropping the
// rows below the new row's parent. It reports false when depth skips a
// level (more than one deeper than the last row): the tree is broken.
func (p *IndentPath[T]) Enter(depth int, row T) bool {
	if depth < 0 || depth > len(p.Rows) {
		return false
	}
	p.Rows = append(p.Rows[:depth], row)
	return true
}

// Depth is the last row's depth (-1 before the first row).
func (p *IndentPath[T]) Depth() int { return len(p.Rows) - 1 }

// LeadingSpaces counts the spaces that start s.
func LeadingSpaces(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// Clip shortens a line for a message: at most 120 bytes, "..." ending
// what was cut.
func Clip(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
