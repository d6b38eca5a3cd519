package profread_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer/profread"
)

// EachLine numbers the lines from 1, drops "\n" and a "\r" before it,
// and stops at the callback's first error.
func TestEachLine(t *testing.T) {
	t.Parallel()
	var got []string
	err := profread.EachLine(context.Background(), []byte("a\r\nb\n\nc\r\r\nlast"), func(ln int, line string) error {
		got = append(got, fmt.Sprintf("%d:%q", ln, line))
		return nil
	})
	want := []string{`1:"a"`, `2:"b"`, `3:""`, `4:"c\r"`, `5:"last"`}
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("lines %v, %v; want %v", got, err, want)
	}
	stop := errors.New("stop")
	n := 0
	err = profread.EachLine(context.Background(), []byte("1\n2\n3\n"), func(ln int, line string) error {
		n++
		if ln == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Errorf("after an error at line 2: %d calls, %v; want 2 and the error", n, err)
	}
}

// EachLine stops soon after its context ends, with the context's cause.
func TestEachLineStops(t *testing.T) {
	t.Parallel()
	cause := errors.New("the memory budget")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	n := 0
	err := profread.EachLine(ctx, []byte(strings.Repeat("x\n", 10000)), func(int, string) error { n++; return nil })
	if !errors.Is(err, cause) || n >= 10000 {
		t.Errorf("%d lines read, %v: want fewer than 10000 and the cause", n, err)
	}
}

// IndentPath keeps the rows from a root to the last row entered, and
// refuses a row more than one level deeper than the last.
func TestIndentPath(t *testing.T) {
	t.Parallel()
	var p profread.IndentPath[string]
	if p.Depth() != -1 {
		t.Errorf("empty path's depth %d, want -1", p.Depth())
	}
	for _, step := range []struct {
		depth int
		row   string
		ok    bool
		want  string
	}{
		{0, "main", true, "main"},
		{1, "run", true, "main/run"},
		{2, "parse", true, "main/run/parse"},
		{1, "render", true, "main/render"},
		{3, "deep", false, "main/render"},
		{0, "other", true, "other"},
		{-1, "bad", false, "other"},
	} {
		if ok := p.Enter(step.depth, step.row); ok != step.ok || strings.Join(p.Rows, "/") != step.want {
			t.Errorf("Enter(%d, %s) = %v, path %v; want %v, %s", step.depth, step.row, ok, p.Rows, step.ok, step.want)
		}
	}
	if p.Depth() != 0 {
		t.Errorf("depth %d, want 0", p.Depth())
	}
}

func TestClipAndLeadingSpaces(t *testing.T) {
	t.Parallel()
	if got := profread.Clip(strings.Repeat("a", 120)); len(got) != 120 || strings.HasSuffix(got, "...") {
		t.Errorf("120 bytes clipped to %q", got)
	}
	if got := profread.Clip(strings.Repeat("a", 121)); len(got) != 120 || !strings.HasSuffix(got, "a...") {
		t.Errorf("121 bytes clipped to %q, want 117 of them and ...", got)
	}
	if n := profread.LeadingSpaces("   \t x"); n != 3 {
		t.Errorf("LeadingSpaces = %d, want 3", n)
	}
}
