// Package tomlstrict decodes TOML documents strictly, for proflab's
// configuration, sweep and workload files: a syntax error, a wrong type or
// an unknown key is an error that names the file, the line and the key,
// and for an unknown key the nearest key its table has ("did you mean").
package tomlstrict

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Options tune Decode.
type Options struct {
	// Ignore reports keys that may stay undecoded (free tables handed on
	// to someone else, such as a HAL's settings).
	Ignore func(toml.Key) bool
	// Hint adds advice to the error for an unknown key, after the "did
	// you mean" ("; " and the text), or "".
	Hint func(toml.Key) string
}

// Decode decodes data into v. name is the file name used in messages. A
// document nested more than MaxNesting levels is refused before decoding
// (CheckNesting).
// Every unknown key is reported, each on its own line of the error, with
// the nearest key v's type has in the same table when one is near
// (`unknown key "machine.cpu" (did you mean "machine.cpus"?)`); the keys
// inside an unknown table are not reported again.
func Decode(name string, data []byte, v any, opt Options) (toml.MetaData, error) {
	if err := CheckNesting(name, data); err != nil {
		return toml.MetaData{}, err
	}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(v)
	if err != nil {
		return md, decodeError(name, err)
	}
	var errs []error
	var unknown []toml.Key
	for _, k := range md.Undecoded() {
		if opt.Ignore != nil && opt.Ignore(k) || inside(k, unknown) {
			continue
		}
		unknown = append(unknown, k)
		msg := fmt.Sprintf("%s: unknown key %q", Where(name, KeyLine(data, k)), k.String())
		if near := nearest(v, k); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		if opt.Hint != nil {
			msg += opt.Hint(k)
		}
		errs = append(errs, errors.New(msg))
	}
	return md, errors.Join(errs...)
}

// inside reports whether k is a key inside one of the tables tables.
func inside(k toml.Key, tables []toml.Key) bool {
	for _, t := range tables {
		if len(k) > len(t) && slices.Equal(k[:len(t)], t) {
			return true
		}
	}
	return false
}

// Where renders "file:line", or the file alone when the line is unknown.
func Where(name string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", name, line)
	}
	return name
}

var typeErrRe = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// decodeError turns the decoder's errors into "file:line: key "k": what".
func decodeError(name string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		if pe.LastKey != "" {
			return fmt.Errorf("%s: key %q: %s", Where(name, pe.Position.Line), pe.LastKey, pe.Message)
		}
		return fmt.Errorf("%s: %s", Where(name, pe.Position.Line), pe.Message)
	}
	if m := typeErrRe.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return fmt.Errorf("%s: key %q: %s", Where(name, line), m[2], m[3])
	}
	return fmt.Errorf("%s: %v", name, err)
}

// KeyLine finds the line of data where key is defined, or 0. It follows
// table headers and dotted keys. For many keys of one document, make its
// KeyIndex once.
func KeyLine(data []byte, key toml.Key) int { return NewKeyIndex(data).Line(key) }

func normKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
