package profread

import (
	"bytes"
	"encoding/json"
)

// JSONTop is what detection sees of a JSON document without decoding
// it: the kind of its top-level value and, for an object, its keys with
// the kind of each value (and the text of short strings); for an array,
// the same of its first element. The JSON formats recognise themselves
// by these keys: one scan of the bytes serves them all (see
// [Content.JSON]), and nothing is decoded before a format reads it.
type JSONTop struct {
	// Kind is '{' (an object), '[' (an array), or 0 (not JSON, or a
	// scalar).
	Kind byte
	// keys are an object's keys (up to maxSniffKeys), in no order.
	keys map[string]jsonVal
	// First is an array's first element when it is an object (nil
	// otherwise).
	First *JSONTop
}

// jsonVal is a top-level value as detection sees it.
type jsonVal struct {
	// kind is the value's first byte: '{', '[', '"', 't', 'f', 'n', or
	// '0' for a number.
	kind byte
	// str is a string value's text, when shorter than maxSniffString.
	str string
}

// Limits of the sniffer: keys beyond maxSniffKeys are not recorded (the
// scan stops), and longer strings keep no text.
const (
	maxSniffKeys   = 4096
	maxSniffString = 1024
)

// Has says whether the object has key with a value of that kind (0: any).
func (j *JSONTop) Has(key string, kind byte) bool {
	if j == nil {
		return false
	}
	v, ok := j.keys[key]
	return ok && (kind == 0 || v.kind == kind)
}

// Str is the text of key's string value ("" when absent or not a short
// string).
func (j *JSONTop) Str(key string) string {
	if j == nil {
		return ""
	}
	return j.keys[key].str
}

// JSON is the content's JSON sniff, made on first use: every JSON
// format's detection asks it, and the bytes are scanned once.
func (c *Content) JSON() *JSONTop {
	if c.json == nil {
		c.json = SniffJSON(c.Data)
	}
	return c.json
}

// SniffJSON scans data's top-level JSON value: an object's keys and the
// kinds of their values (skipping the values), or an array's first
// element. It never fails: what it could not read is simply not there
// (a truncated document keeps the keys before the cut, and the format
// that claims it reports the error with its line).
func SniffJSON(data []byte) *JSONTop {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	i := skipSpace(data, 0)
	if i >= len(data) {
		return &JSONTop{}
	}
	switch data[i] {
	case '{':
		return sniffObject(data, i)
	case '[':
		top := &JSONTop{Kind: '['}
		if j := skipSpace(data, i+1); j < len(data) && data[j] == '{' {
			top.First = sniffObject(data, j)
		}
		return top
	}
	return &JSONTop{}
}

// sniffObject reads the object at data[i] ('{'): its keys and the kinds
// of their values, up to its end or to where it is cut short or
// malformed.
func sniffObject(data []byte, i int) *JSONTop {
	top := &JSONTop{Kind: '{', keys: map[string]jsonVal{}}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return top
	}
	for i < len(data) && len(top.keys) < maxSniffKeys {
		if data[i] != '"' {
			return top
		}
		j := skipString(data, i)
		if j < 0 {
			return top
		}
		key := jsonString(data[i:j])
		i = skipSpace(data, j)
		if i >= len(data) || data[i] != ':' {
			return top
		}
		i = skipSpace(data, i+1)
		if i >= len(data) {
			return top
		}
		v := jsonVal{kind: data[i]}
		if v.kind == '-' || v.kind >= '0' && v.kind <= '9' {
			v.kind = '0'
		}
		j = skipValue(data, i)
		if j < 0 {
			top.keys[key] = v // the value is cut short: its kind is known
			return top
		}
		if v.kind == '"' && j-i <= maxSniffString {
			v.str = jsonString(data[i:j])
		}
		top.keys[key] = v
		i = skipSpace(data, j)
		if i >= len(data) {
			return top
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return top
		default:
			return top
		}
	}
	return top
}

// skipSpace is the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString is the index after the string starting at data[i] ('"'),
// or -1 when it does not end.
func skipString(data []byte, i int) int {
	i++
	for {
		k := bytes.IndexByte(data[i:], '"')
		if k < 0 {
			return -1
		}
		q := i + k
		bs := 0
		for p := q - 1; p >= i && data[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// skipValue is the index after the JSON value starting at data[i], or
// -1 when it is cut short. Brackets are counted, not matched: the
// decoder of the format that claims the file reports malformed JSON.
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
	default: // a scalar: up to the next delimiter
		j := i
		for j < len(data) {
			switch data[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j
			}
			j++
		}
		return j
	}
	depth := 0
	for i < len(data) {
		switch data[i] {
		case '"':
			if i = skipString(data, i); i < 0 {
				return -1
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

// jsonString is the text of a JSON string literal (with its quotes).
func jsonString(lit []byte) string {
	if bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1 : len(lit)-1])
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return ""
	}
	return s
}
