package suggest_test

import (
	"fmt"
	"testing"

	"github.com/proflab/proflab/core/leaftest"
	"github.com/proflab/proflab/core/suggest"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"interval", "intervall", 1}, {"intreval", "interval", 2}, {"größe", "grösse", 2},
	} {
		if got := suggest.Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	known := []string{"interval", "buckets", "source", "Process"}
	for _, c := range []struct{ name, want string }{
		{"intervall", "interval"}, // one letter too many
		{"bukets", "buckets"},
		{"PROCESS", "Process"}, // case does not count
		{"src", ""},            // 3 edits from "source": too far for 3 letters
		{"something", ""},      // nothing near
		{"sourse", "source"},
	} {
		if got := suggest.Closest(c.name, known); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func ExampleClosest() {
	fmt.Println(suggest.Closest("intervall", []string{"interval", "source"}))
	// Output: interval
}

// The package stays a leaf: the standard library only.
func TestSuggestIsALeaf(t *testing.T) {
	t.Parallel()
	leaftest.Check(t, leaftest.Rule{Why: "suggest is a string utility every layer may call: it imports nothing of proflab"})
}
