package scenarios_test

import (
	"fmt"
	"strings"
	"testing"
)

// lineDiff is a line diff of want and got: only the lines that differ,
// "-" for want's and "+" for got's, each with its line number in want or
// got, and up to context unchanged lines around each change ("…" where
// lines are left out). It is "" when they are equal.
func lineDiff(want, got string, context int) string {
	if want == got {
		return ""
	}
	a, b := splitLines(want), splitLines(got)
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:]
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte // ' ', '-', '+'
		n    int  // 1-based line number in want (' ', '-') or got ('+')
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			lines = append(lines, line{' ', i + 1, a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			lines = append(lines, line{'-', i + 1, a[i]})
			i++
		default:
			lines = append(lines, line{'+', j + 1, b[j]})
			j++
		}
	}
	show := make([]bool, len(lines))
	for k, l := range lines {
		if l.op != ' ' {
			for c := max(0, k-context); c <= min(len(lines)-1, k+context); c++ {
				show[c] = true
			}
		}
	}
	var out strings.Builder
	skipped := false
	for k, l := range lines {
		if !show[k] {
			skipped = true
			continue
		}
		if skipped && out.Len() > 0 {
			out.WriteString("…\n")
		}
		skipped = false
		text := l.text
		if !strings.HasSuffix(text, "\n") {
			text += "⏎ (no newline at the end)\n"
		}
		fmt.Fprintf(&out, "%c%4d %s", l.op, l.n, text)
	}
	return out.String()
}

// splitLines splits s after each newline (a last line without one is a
// line too).
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name, want, got, diff string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"changed", "a\nb\nc\nd\ne\nf\n", "a\nb\nc\nX\ne\nf\n", "    3 c\n-   4 d\n+   4 X\n    5 e\n"},
		{"added", "a\nb\n", "a\nb\nc\n", "    2 b\n+   3 c\n"},
		{"removed", "a\nb\nc\n", "b\nc\n", "-   1 a\n    2 b\n"},
		{"far apart", "1\n2\n3\n4\n5\n6\n7\n", "X\n2\n3\n4\n5\n6\nY\n", "-   1 1\n+   1 X\n    2 2\n…\n    6 6\n-   7 7\n+   7 Y\n"},
		{"last newline", "a\n", "a", "-   1 a\n+   1 a⏎ (no newline at the end)\n"},
	}
	for _, tt := range tests {
		if got := lineDiff(tt.want, tt.got, 1); got != tt.diff {
			t.Errorf("%s: diff\n%s\nwant\n%s", tt.name, got, tt.diff)
		}
	}
}
