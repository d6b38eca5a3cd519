package results

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// parseHead is Parse for the passes that check a file before it is read
// (hold it to its runs, count it, order it): it accepts exactly the lines
// Parse accepts, refusing the others with Parse's error, but returns only
// the line's identity (index, id, repeat, seed, status: the other fields
// are zero) and its params as the line writes them (nil when it has
// none, or when scanHead left the line to Parse).
//
// A line as Line.Marshal writes it is checked by scanHead, which decodes
// nothing but the identity; any other line (an edit, odd spacing, a key
// twice, an escape in an id) is decoded whole by Parse.
func parseHead(raw []byte) (l Line, params []byte, err error) {
	if l, params, ok := scanHead(raw); ok {
		return l, params, nil
	}
	l, err = Parse(raw)
	return identity(l), nil, err
}

// parseLineHead is parseHead for the readers that want no params.
func parseLineHead(raw []byte) (Line, error) {
	l, _, err := parseHead(raw)
	return l, err
}

// identity is l's index, id, repeat, seed and status alone.
func identity(l Line) Line {
	return Line{Index: l.Index, ID: l.ID, Repeat: l.Repeat, Seed: l.Seed, Status: l.Status}
}

// The fields of a line, as bits of the set scanHead has seen.
const (
	fIndex = 1 << iota
	fID
	fParams
	fRepeat
	fSeed
	fStatus
	fMetrics
	fChecks
	fInterrupts
	fError
	fTimings
)

// lineFields are the keys of a line, as Line.Marshal writes them.
var lineFields = map[string]int{
	"index": fIndex, "id": fID, "params": fParams, "repeat": fRepeat, "seed": fSeed, "status": fStatus,
	"metrics": fMetrics, "checks": fChecks, "interrupts": fInterrupts, "error": fError, "timings": fTimings,
}

// scanHead reads the identity and the params' text of a line that is
// valid JSON and has the keys and types of a Line, as Line.Marshal
// writes it: each key once, spelled as in Line's tags, ids and statuses
// without escapes. Such a line Parse accepts, with the same identity.
// ok is false for any other line, which the caller gives to Parse: it
// may be one Parse accepts (keys in another case, a key twice) or
// refuses, and only Parse knows which, and what to say.
func scanHead(raw []byte) (l Line, params []byte, ok bool) {
	if !json.Valid(raw) {
		return Line{}, nil, false
	}
	s := scanner{b: raw}
	seen := 0
	ok = s.object(func(key []byte) bool {
		f := lineFields[string(key)]
		if f == 0 || seen&f != 0 {
			return false
		}
		seen |= f
		v := s.value()
		var err error
		switch f {
		case fIndex:
			l.Index, err = strconv.Atoi(string(number(v)))
		case fRepeat:
			l.Repeat, err = strconv.Atoi(string(number(v)))
		case fSeed:
			l.Seed, err = strconv.ParseUint(string(number(v)), 10, 64)
		case fID:
			l.ID, err = plainString(v)
		case fStatus:
			var st string
			st, err = plainString(v)
			l.Status = Status(st)
		case fParams:
			params = v
			return lead(v) == '{'
		case fMetrics:
			return lead(v) == '{' || string(v) == "null"
		case fChecks:
			return nullOr(v, '[', func(e *scanner) bool { return e.each(checkOK) })
		case fInterrupts:
			return nullOr(v, '{', func(e *scanner) bool {
				return e.object(func([]byte) bool { return isUint(e.value()) })
			})
		case fError:
			return nullOr(v, '{', func(e *scanner) bool {
				return e.object(func(key []byte) bool {
					return isIn(key, "kind", "message", "where", "traceback") && lead(e.value()) == '"'
				})
			})
		case fTimings:
			return nullOr(v, '{', func(e *scanner) bool {
				return e.object(func(key []byte) bool { return string(key) == "wall_seconds" && isFloat(e.value()) })
			})
		}
		return err == nil
	})
	if !ok || s.rest() || l.ID == "" || l.Status == "" {
		return Line{}, nil, false
	}
	return l, params, true
}

// checkOK is whether the array element at e is a Check, as Line.Marshal
// writes one.
func checkOK(e *scanner) bool {
	return e.object(func(key []byte) bool {
		v := e.value()
		switch string(key) {
		case "passed":
			return string(v) == "true" || string(v) == "false"
		case "where", "message":
			return lead(v) == '"'
		}
		return false
	})
}

// nullOr is whether v is null, or a value that opens with open and that
// ok accepts.
func nullOr(v []byte, open byte, ok func(e *scanner) bool) bool {
	if string(v) == "null" {
		return true
	}
	return lead(v) == open && ok(&scanner{b: v})
}

// number is v if it is a JSON number, else nil (which no strconv
// function accepts).
func number(v []byte) []byte {
	if c := lead(v); c == '-' || c >= '0' && c <= '9' {
		return v
	}
	return nil
}

// isUint is whether v is a JSON number a uint64 holds.
func isUint(v []byte) bool {
	_, err := strconv.ParseUint(string(number(v)), 10, 64)
	return err == nil
}

// isFloat is whether v is a JSON number a float64 holds.
func isFloat(v []byte) bool {
	_, err := strconv.ParseFloat(string(number(v)), 64)
	return err == nil
}

// isIn is whether key is one of keys.
func isIn(key []byte, keys ...string) bool {
	for _, k := range keys {
		if string(key) == k {
			return true
		}
	}
	return false
}

// errNotPlain is a string scanHead leaves to Parse.
var errNotPlain = strconv.ErrSyntax

// plainText is the text of the JSON string v if it has no escapes and is
// valid UTF-8 (then its text is what it decodes to).
func plainText(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	text := v[1 : len(v)-1]
	return text, bytes.IndexByte(text, '\\') < 0 && utf8.Valid(text)
}

// plainString is plainText as a string, or errNotPlain.
func plainString(v []byte) (string, error) {
	text, ok := plainText(v)
	if !ok {
		return "", errNotPlain
	}
	return string(text), nil
}

// lead is the first byte of v, 0 if it is empty.
func lead(v []byte) byte {
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// scanner walks JSON that json.Valid accepted, so that every string
// closes and every bracket is matched; it still never reads past its
// bytes, whatever they are.
type scanner struct {
	b []byte
	i int
}

// isSpace is whether c is JSON white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// space skips white space.
func (s *scanner) space() {
	for s.i < len(s.b) && isSpace(s.b[s.i]) {
		s.i++
	}
}

// next consumes c after white space, if it is there.
func (s *scanner) next(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// rest is whether anything but white space is left.
func (s *scanner) rest() bool {
	s.space()
	return s.i < len(s.b)
}

// skipString moves past the string that opens at s.i.
func (s *scanner) skipString() {
	for s.i++; s.i < len(s.b) && s.b[s.i] != '"'; s.i++ {
		if s.b[s.i] == '\\' {
			s.i++
		}
	}
	s.i = min(s.i+1, len(s.b))
}

// value skips the next value and returns its text; nil where there is
// none (a delimiter, or the end).
func (s *scanner) value() []byte {
	s.space()
	start := s.i
	if s.i >= len(s.b) {
		return nil
	}
	switch s.b[s.i] {
	case '"':
		s.skipString()
	case '{', '[':
		for depth := 0; s.i < len(s.b); {
			switch s.b[s.i] {
			case '"':
				s.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					s.i++
					return s.b[start:s.i]
				}
			}
			s.i++
		}
	case '}', ']', ',', ':':
		return nil
	default: // a number, true, false or null
		for s.i < len(s.b) && !isSpace(s.b[s.i]) && s.b[s.i] != ',' && s.b[s.i] != '}' && s.b[s.i] != ']' {
			s.i++
		}
	}
	return s.b[start:s.i]
}

// object walks the object at s, calling member with each key (a string
// without escapes) for it to read the value; false from member, a key
// with escapes, or anything not an object, is false.
func (s *scanner) object(member func(key []byte) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	for {
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		key, ok := plainText(s.value())
		if !ok || !s.next(':') || !member(key) {
			return false
		}
		if !s.next(',') {
			return s.next('}')
		}
	}
}

// each walks the array at s, calling elem with a scanner over each
// element; false from elem, or anything not an array, is false.
func (s *scanner) each(elem func(e *scanner) bool) bool {
	if !s.next('[') {
		return false
	}
	if s.next(']') {
		return true
	}
	for {
		e := scanner{b: s.value()}
		if !elem(&e) || e.rest() {
			return false
		}
		if !s.next(',') {
			return s.next(']')
		}
	}
}
