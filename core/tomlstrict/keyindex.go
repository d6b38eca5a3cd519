package tomlstrict

import (
	"strings"

	"github.com/BurntSushi/toml"
)

// KeyIndex is where a document defines its keys, read in one pass: the
// line of every key a configuration defines was a pass over the whole
// document per key (for the embedded default configuration, most of
// what loading it cost).
type KeyIndex struct {
	headers map[string]int // a table header's key → its first line
	keys    map[string]int // a `key = value` line's full key → its first line
}

// NewKeyIndex reads data's table headers and `key = value` lines.
func NewKeyIndex(data []byte) *KeyIndex {
	x := &KeyIndex{headers: map[string]int{}, keys: map[string]int{}}
	first := func(m map[string]int, k string, line int) {
		if _, ok := m[k]; !ok {
			m[k] = line
		}
	}
	var table string
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "[") {
			table = normKey(strings.Trim(strings.SplitN(line, "#", 2)[0], " \t[]"))
			first(x.headers, table, i+1)
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		full := normKey(k)
		if table != "" {
			full = table + "." + full
		}
		first(x.keys, full, i+1)
	}
	return x
}

// Line is the first line that defines key (0: none): its table's header,
// a `key = value` line, or a line that sets a table holding it (`a.b =
// { c = 1 }` defines a.b.c).
func (x *KeyIndex) Line(key toml.Key) int {
	want := strings.Join(key, ".")
	best := 0
	consider := func(line int) {
		if line > 0 && (best == 0 || line < best) {
			best = line
		}
	}
	consider(x.headers[want])
	consider(x.keys[want])
	for i := len(want) - 1; i > 0; i-- {
		if want[i] == '.' {
			consider(x.keys[want[:i]])
		}
	}
	return best
}
