package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// ParseSet reads one --set argument, "key=value". The value is a TOML
// literal when it parses as one (8 is a number, true a boolean, "x" and
// [1, 2] what TOML says), and the text as a string otherwise (so
// --set name=apic needs no quotes). Dates and times are kept as text.
func ParseSet(arg string) (string, any, error) {
	key, text, ok := strings.Cut(arg, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return "", nil, fmt.Errorf("--set %q: expected key=value (for example --set interval=10000)", arg)
	}
	return key, literal(text), nil
}

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

// literal reads text as a TOML value, falling back to the text itself.
func literal(text string) any {
	var doc map[string]any
	if _, err := toml.Decode("v = "+text, &doc); err != nil {
		return text
	}
	v, ok := doc["v"]
	if !ok {
		return text
	}
	return plain(v, text)
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
