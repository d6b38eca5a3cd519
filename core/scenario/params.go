package scenario

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/proflab/proflab/core/tomlstrict"
)

// ParseSet reads one --set argument, "key=value". The value is a TOML
// literal (8 and 0x10 are integers, 0.25 a float, true a boolean, "x" a
// string, [1, 2] a list, {a = 1} a table; dates and times are kept as
// text). Two kinds of bare words are strings without quotes, for
// convenience: a word that starts with a letter and holds only letters,
// digits and _ - . : / = + @ (--set hal=apic, --set file=data/w.toml), and a
// dotted version of three or more numbers (--set version=10.0.19041).
// Anything else — 1221ms, [1,2, an empty value, words with spaces — is an
// error that shows how to quote a string, rather than a string that
// fails later in the scenario.
func ParseSet(arg string) (string, any, error) {
	key, text, ok := strings.Cut(arg, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return "", nil, fmt.Errorf("--set %q: expected key=value (for example --set interval=10000)", arg)
	}
	v, err := literal(key, text)
	if err != nil {
		return "", nil, fmt.Errorf("--set %s: %v", arg, err)
	}
	if bad, ok := nonFinite(v); ok {
		return "", nil, fmt.Errorf("--set %s: %s is not a finite number; give a parameter a finite number (results and lab.params cannot hold nan or inf)", arg, bad)
	}
	return key, v, nil
}

// nonFinite finds a NaN or an infinity in v (a --set value: a scalar, a
// list or a table) and returns it as TOML writes it (nan, inf, -inf).
func nonFinite(v any) (string, bool) {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsNaN(x):
			return "nan", true
		case math.IsInf(x, 1):
			return "inf", true
		case math.IsInf(x, -1):
			return "-inf", true
		}
	case []any:
		for _, e := range x {
			if s, ok := nonFinite(e); ok {
				return s, true
			}
		}
	case map[string]any:
		for _, e := range x {
			if s, ok := nonFinite(e); ok {
				return s, true
			}
		}
	}
	return "", false
}

// bareString matches the unquoted words --set takes as strings.
var bareString = regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9_.:/=+@-]*|[0-9]+(?:\.[0-9]+){2,})$`)

// ParseSets reads every --set argument into a parameter map; a later
// value of a key replaces an earlier one.
func ParseSets(args []string) (map[string]any, error) {
	out := map[string]any{}
	for _, a := range args {
		k, v, err := ParseSet(a)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// literal reads text as a TOML value, or a bare word as a string (see
// ParseSet).
func literal(key, text string) (any, error) {
	t := strings.TrimSpace(text)
	if err := tomlstrict.CheckNesting("--set", []byte("v = "+t)); err != nil {
		return nil, fmt.Errorf("the value nests more than %d lists and tables deep; proflab reads at most %d", tomlstrict.MaxNesting-1, tomlstrict.MaxNesting-1)
	}
	var doc map[string]any
	if _, err := toml.Decode("v = "+t, &doc); err == nil {
		if v, ok := doc["v"]; ok {
			return plain(v, t), nil
		}
	}
	if bareString.MatchString(t) {
		return t, nil
	}
	if t == "" {
		return nil, fmt.Errorf("the value is empty; for an empty string write --set '%s=\"\"'", key)
	}
	return nil, fmt.Errorf("%q is not a TOML value (a number such as 1221, true/false, a list such as [1, 2]); "+
		"to pass it as a string, quote it: --set '%s=\"%s\"'", t, key, strings.ReplaceAll(t, `"`, `\"`))
}

// plain replaces the TOML date and time types by their text.
func plain(v any, text string) any {
	switch x := v.(type) {
	case time.Time:
		return strings.TrimSpace(text)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e, fmt.Sprint(e))
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e, "")
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plain(e, fmt.Sprint(e))
		}
		return out
	}
	return v
}
