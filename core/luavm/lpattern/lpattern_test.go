package lpattern_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/pm"

	"github.com/proflab/proflab/core/leaftest"
	"github.com/proflab/proflab/core/luavm/lpattern"
)

// TestLeaf keeps lpattern a leaf: Lua's patterns over the standard
// library (its tests compare it with gopher-lua's pm).
func TestLeaf(t *testing.T) {
	t.Parallel()
	leaftest.Check(t, leaftest.Rule{
		Why:   "lpattern is Lua's pattern matcher, over the standard library only",
		Allow: []string{"github.com/proflab/proflab/core/leaftest", "github.com/yuin/gopher-lua/pm"},
		Tests: true,
	})
}

// Find answers as gopher-lua's pm.Find does, match for match and error
// for error, over patterns of every kind of item.
func TestFindIsPm(t *testing.T) {
	subjects := []string{"", "hello world from Lua", "key = value; k2 = v2", "((a)(b))c", "aaab", "THE (quick) fox", "a.b.c", "x=1, y=22, z=333"}
	patterns := []string{"o", "l+", "l*", "l-o", "%a+", "(%w+)=(%w+)", "()ll()", "%((%a+)%)", "^h", "b$", "%bxy", "%b()", "[%a_][%w_]*",
		"[^%s]+", "(a)%1", ".-b", "%d+", "[a-c]", "%.", "%", "[a", "(()", "%1", "(a", "%f[%w]%w+", "x*y?", ".", "^(.-)%s*$"}
	for _, s := range subjects {
		for _, p := range patterns {
			for _, lim := range []int{1, -1} {
				want, werr := pm.Find(p, []byte(s), 0, lim)
				got, gerr := lpattern.Find(p, []byte(s), 0, lim, nil)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) {
					t.Errorf("%q in %q: error %v, pm's %v", p, s, gerr, werr)
					continue
				}
				if show(got) != show(want) {
					t.Errorf("%q in %q (limit %d): %s, pm's %s", p, s, lim, show(got), show(want))
				}
			}
		}
	}
}

// match is a match of either package.
type match interface {
	CaptureLength() int
	Capture(int) int
	IsPosCapture(int) bool
}

// show writes matches' captures, to compare the packages' answers.
func show[M match](ms []M) string {
	var b strings.Builder
	for _, m := range ms {
		for i := range m.CaptureLength() {
			fmt.Fprint(&b, m.Capture(i), m.IsPosCapture(i), " ")
		}
		b.WriteString("| ")
	}
	return b.String()
}

// A pattern that backtracks without end stops at the stop function's
// first error, having matched at most CheckEvery steps past it; the
// matcher asks it as it goes (a quick match never does).
func TestFindStops(t *testing.T) {
	end := errors.New("the run's budget ended")
	calls := 0
	stop := func() error {
		if calls++; calls == 3 {
			return end
		}
		return nil
	}
	ms, err := lpattern.Find(".-.-.-.-.-b", []byte(strings.Repeat("a", 1e6)), 0, 1, stop)
	if !errors.Is(err, end) || ms != nil || calls != 3 {
		t.Errorf("matches %v, error %v after %d calls; want the stop function's error at its third call", ms, err, calls)
	}
	calls = 0
	if ms, err := lpattern.Find("b", []byte("ab"), 0, 1, func() error { calls++; return end }); err != nil || len(ms) != 1 || calls != 0 {
		t.Errorf("a quick match: %v, %v, stop called %d times", ms, err, calls)
	}
}

// BenchmarkFind: what counting steps costs, against gopher-lua's pm on
// the same subjects (a scan for every word, a backtracking match).
func BenchmarkFind(b *testing.B) {
	text := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog ", 2000))
	for _, c := range []struct{ name, pattern string }{{"words", "%a+"}, {"backtrack", "q.-z.-g"}} {
		b.Run(c.name+"/pm", func(b *testing.B) {
			for b.Loop() {
				if _, err := pm.Find(c.pattern, text, 0, -1); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/lpattern", func(b *testing.B) {
			stop := func() error { return nil }
			for b.Loop() {
				if _, err := lpattern.Find(c.pattern, text, 0, -1, stop); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
