package tomlstrict

import (
	"fmt"
)

// MaxNesting is how deeply a TOML document proflab reads may nest: its
// tables (a header's and a key's dotted parts), arrays and inline tables
// counted together. The TOML decoder recurses once per level, so 2·10^6
// nested [ in a 4 MB file ended the process with Go's fatal stack
// overflow, and 10^6 dotted parts took seconds and a gigabyte; proflab's
// own files nest 2 to 5 levels.
const MaxNesting = 64

// CheckNesting refuses a TOML document nested more than MaxNesting levels,
// naming the file (name) and the line where it goes past; it reads the
// bytes as TOML's lexer does (strings, comments, headers, keys), without
// decoding anything. Decode calls it first; a caller that hands bytes to
// the toml package itself calls it before.
func CheckNesting(name string, data []byte) error {
	n := nestingScan{data: data, line: 1}
	return n.scan(name)
}

// nestingScan is the scanner of CheckNesting.
type nestingScan struct {
	data []byte
	i    int
	line int
}

// container is an open array ('[') or inline table ('{') and its level.
type container struct {
	kind  byte
	level int
}

func (n *nestingScan) scan(name string) error {
	tooDeep := func(level int) error {
		return fmt.Errorf("%s: tables, arrays and inline tables nest more than %d levels deep here (%d); proflab reads TOML nested at most %d levels",
			Where(name, n.line), MaxNesting, level, MaxNesting)
	}
	var (
		open      []container // the arrays and inline tables open now
		header    int         // the parts of the last table header's key
		parts     int         // the parts of the key read last
		key       = true      // reading a key (else a value)
		lineStart = true      // nothing but white space so far on this line
	)
	// level is how deep the value of the key read last lies: below the
	// header at the top level, below its inline table inside one.
	level := func() int {
		if len(open) == 0 {
			return header + parts
		}
		return open[len(open)-1].level + parts
	}
	for n.i < len(n.data) {
		c := n.data[n.i]
		switch c {
		case '\n':
			n.line++
			n.i++
			if len(open) == 0 {
				key, parts, lineStart = true, 0, true
			}
			continue
		case ' ', '\t', '\r':
			n.i++
			continue
		case '#':
			for n.i < len(n.data) && n.data[n.i] != '\n' {
				n.i++
			}
			continue
		}
		atLineStart := lineStart
		lineStart = false
		switch {
		case c == '"' || c == '\'':
			n.skipString(c)
			continue
		case c == '[' && atLineStart && len(open) == 0:
			// a table header, [a.b] or [[a.b]]: its parts are the level
			// of the keys below it
			header = 1
			for n.i++; n.i < len(n.data) && n.data[n.i] != ']' && n.data[n.i] != '\n'; {
				switch n.data[n.i] {
				case '"', '\'':
					n.skipString(n.data[n.i])
					continue
				case '.':
					header++
				}
				n.i++
			}
			if header > MaxNesting {
				return tooDeep(header)
			}
			continue
		case key && c == '.':
			parts++
		case key && c == '=':
			key = false
			parts++ // the key's last part
			if l := level(); l > MaxNesting {
				return tooDeep(l)
			}
		case !key && (c == '[' || c == '{'):
			l := level() + 1
			if l > MaxNesting {
				return tooDeep(l)
			}
			open = append(open, container{kind: c, level: l})
			key, parts = c == '{', 0
		case c == ']' || c == '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			key, parts = false, 0 // a ',', the container's end or the line's comes next
		case c == ',':
			key, parts = len(open) > 0 && open[len(open)-1].kind == '{', 0
		}
		n.i++
	}
	return nil
}

// skipString moves past the string starting at n.i (quote q: " or '),
// single- or multi-line, as TOML's lexer reads it: a basic string's
// backslash escapes the next character, a literal string has no escapes,
// a single-line string ends at the end of its line at the latest, and a
// multi-line string's closing quotes may have up to two more quotes
// before them.
func (n *nestingScan) skipString(q byte) {
	d := n.data
	if n.i+2 < len(d) && d[n.i+1] == q && d[n.i+2] == q {
		n.i += 3
		for n.i < len(d) {
			switch {
			case d[n.i] == '\\' && q == '"':
				if n.i+1 < len(d) && d[n.i+1] == '\n' {
					n.line++
				}
				n.i += 2
			case d[n.i] == '\n':
				n.line++
				n.i++
			case d[n.i] == q && n.i+2 < len(d) && d[n.i+1] == q && d[n.i+2] == q:
				n.i += 3
				for k := 0; k < 2 && n.i < len(d) && d[n.i] == q; k++ {
					n.i++
				}
				return
			default:
				n.i++
			}
		}
		return
	}
	n.i++
	for n.i < len(d) && d[n.i] != '\n' {
		switch {
		case d[n.i] == '\\' && q == '"':
			n.i += 2
			continue
		case d[n.i] == q:
			n.i++
			return
		}
		n.i++
	}
}
