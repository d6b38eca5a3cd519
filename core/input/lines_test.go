package input

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// BoundLines passes lines up to its limit and stops at the first longer
// one, naming it, however the reads split the lines.
func TestBoundLines(t *testing.T) {
	for _, c := range []struct {
		name, text string
		limit      int
		want       string // "" for no error
	}{
		{"short lines", "ab\ncd\nef", 2, ""},
		{"a line at the limit", "abcd\n", 4, ""},
		{"the second line too long", "ab\nabcde\nx\n", 4, "line 2: line too long: more than 4 bytes without a newline"},
		{"no newline at all", strings.Repeat("z", 100), 10, "line 1: line too long"},
	} {
		for _, chunk := range []int{1, 3, 1 << 10} {
			got, err := io.ReadAll(BoundLines(&chunked{s: c.text, n: chunk}, c.limit))
			switch {
			case c.want == "" && (err != nil || string(got) != c.text):
				t.Errorf("%s (reads of %d): %q, %v", c.name, chunk, got, err)
			case c.want != "" && (err == nil || !errors.Is(err, ErrLineTooLong) || !strings.HasPrefix(err.Error(), c.want)):
				t.Errorf("%s (reads of %d): error %v, want %q", c.name, chunk, err, c.want)
			}
		}
	}
}

// chunked reads s at most n bytes at a time.
type chunked struct {
	s string
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}
