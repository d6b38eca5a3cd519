package etl_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/etl"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.ReplaceAll(s, " ", "")
	out := make([]byte, len(s)/2)
	for i := range out {
		var v byte
		for _, c := range s[2*i : 2*i+2] {
			v <<= 4
			switch {
			case c >= '0' && c <= '9':
				v |= byte(c - '0')
			case c >= 'a' && c <= 'f':
				v |= byte(c - 'a' + 10)
			}
		}
		out[i] = v
	}
	return out
}

// TestLZ77 decodes [MS-XCA] section 3.1's two plain LZ77 examples: 26 literals,
// and "abc" 100 times (a match of 297 bytes through the nibble, byte and
// word length escapes).
func TestLZ77(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		{"3f000000 6162636465666768696a6b6c6d6e6f707172737475767778797a", "abcdefghijklmnopqrstuvwxyz"},
		{"ffffff1f 616263 1700 0fff 2601", strings.Repeat("abc", 100)},
	} {
		got, err := etl.DecompressLZ77(nil, unhex(t, c.in), len(c.want))
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestLZ77Damaged refuses streams that overrun their limit or reach
// before the output.
func TestLZ77Damaged(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit int
		want  string
	}{
		{"ffffff1f 616263 1700 0fff 2601", 299, "inflates past 299 bytes"},
		{"3f000000 6162636465666768696a6b6c6d6e6f707172737475767778797a", 10, "inflates past 10 bytes"},
		{"00000080 0800", 100, "before the start of the output"},
		{"00000080 07", 100, "cut short"},
		{"ffffff1f 616263 1700 0fff 0100", 1000, "below its escape's minimum"},
	} {
		_, err := etl.DecompressLZ77(nil, unhex(t, c.in), c.limit)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s (limit %d): error %v, want %q", c.in, c.limit, err, c.want)
		}
	}
}

// The decompressor reuses dst.
func TestLZ77ReusesBuffer(t *testing.T) {
	dst := make([]byte, 0, 400)
	got, err := etl.DecompressLZ77(dst, unhex(t, "ffffff1f 616263 1700 0fff 2601"), 400)
	if err != nil || &got[0] != &dst[:1][0] || !bytes.Equal(got, []byte(strings.Repeat("abc", 100))) {
		t.Errorf("a buffer of enough capacity was not reused (%v)", err)
	}
}
