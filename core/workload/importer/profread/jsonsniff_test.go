package profread_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer/profread"
)

// SniffJSON sees a document's top-level keys and the kinds of their
// values without decoding it, whatever follows or is cut off.
func TestSniffJSON(t *testing.T) {
	t.Parallel()
	type has struct {
		key  string
		kind byte
	}
	for _, c := range []struct {
		name string
		doc  string
		kind byte
		has  []has    // keys the sniff has, with their value's kind
		not  []has    // keys (or kinds) it has not
		str  []string // key, its string value
	}{
		{"object", `{"nodes": [1, 2], "startTime": -12.5e3, "name": "a\"b", "meta": {"x": [}}, "ok": true, "no": null}`, '{',
			[]has{{"nodes", '['}, {"startTime", '0'}, {"name", '"'}, {"meta", '{'}, {"ok", 't'}, {"no", 'n'}, {"nodes", 0}},
			[]has{{"nodes", '{'}, {"x", 0}}, []string{"name", `a"b`}},
		{"byte order mark and space", "\xef\xbb\xbf \n\t{\"a\":1}", '{', []has{{"a", '0'}}, nil, nil},
		{"empty object", `{}`, '{', nil, []has{{"a", 0}}, nil},
		{"cut in a value", `{"a": "x", "samples": [1, 2, 3`, '{', []has{{"a", '"'}, {"samples", '['}}, nil, []string{"a", "x"}},
		{"cut in a key", `{"a": 1, "sam`, '{', []has{{"a", '0'}}, []has{{"sam", 0}}, nil},
		{"malformed after a key", `{"a": 1 "b": 2}`, '{', []has{{"a", '0'}}, []has{{"b", 0}}, nil},
		{"not JSON", `prog 1234 cycles:`, 0, nil, []has{{"prog", 0}}, nil},
		{"empty", ``, 0, nil, nil, nil},
		{"long string keeps no text", `{"s": "` + strings.Repeat("x", 2000) + `"}`, '{', []has{{"s", '"'}}, nil, []string{"s", ""}},
	} {
		j := profread.SniffJSON([]byte(c.doc))
		if j.Kind != c.kind {
			t.Errorf("%s: kind %q, want %q", c.name, j.Kind, c.kind)
		}
		for _, h := range c.has {
			if !j.Has(h.key, h.kind) {
				t.Errorf("%s: Has(%q, %q) = false, want true", c.name, h.key, h.kind)
			}
		}
		for _, h := range c.not {
			if j.Has(h.key, h.kind) {
				t.Errorf("%s: Has(%q, %q) = true, want false", c.name, h.key, h.kind)
			}
		}
		if c.str != nil && j.Str(c.str[0]) != c.str[1] {
			t.Errorf("%s: Str(%q) = %q, want %q", c.name, c.str[0], j.Str(c.str[0]), c.str[1])
		}
	}
}

// An array's sniff is its first element's, when that is an object (a
// trace's first event).
func TestSniffJSONArray(t *testing.T) {
	t.Parallel()
	j := profread.SniffJSON([]byte(`[ {"ph": "X", "ts": 1}, {"other": 2}`))
	if j.Kind != '[' || !j.First.Has("ph", '"') || j.First.Str("ph") != "X" || j.First.Has("other", 0) {
		t.Errorf("array sniff: kind %q, first %+v", j.Kind, j.First)
	}
	if j := profread.SniffJSON([]byte(`[1, 2]`)); j.Kind != '[' || j.First != nil || j.First.Has("a", 0) {
		t.Errorf("array of numbers: kind %q, first %+v: want no first object", j.Kind, j.First)
	}
}
