package workload

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Load reads a workload TOML file strictly (see [Parse]).
func Load(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes a workload from TOML. Unknown keys and wrong types are
// errors naming the file, the line and the key; name is the file name
// used in messages. The result is not yet checked: call [Spec.Resolve].
func Parse(name string, data []byte) (*Spec, error) {
	var s Spec
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&s)
	if err != nil {
		return nil, decodeError(name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		var errs []error
		for _, k := range und {
			errs = append(errs, fmt.Errorf("%s: unknown key %q", where(name, keyLine(data, k)), k.String()))
		}
		return nil, errors.Join(errs...)
	}
	return &s, nil
}

// Encode writes s as TOML (the resolved-config output).
func Encode(s *Spec) ([]byte, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func where(name string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", name, line)
	}
	return name
}

var typeErrRe = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

func decodeError(name string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		if pe.LastKey != "" {
			return fmt.Errorf("%s: key %q: %s", where(name, pe.Position.Line), pe.LastKey, pe.Message)
		}
		return fmt.Errorf("%s: %s", where(name, pe.Position.Line), pe.Message)
	}
	if m := typeErrRe.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return fmt.Errorf("%s: key %q: %s", where(name, line), m[2], m[3])
	}
	return fmt.Errorf("%s: %v", name, err)
}

// keyLine finds the line where key is defined, following table headers
// and dotted keys, or 0.
func keyLine(data []byte, key toml.Key) int {
	want := strings.Join(key, ".")
	var table string
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "[") {
			table = normKey(strings.Trim(strings.SplitN(line, "#", 2)[0], " \t[]"))
			if table == want {
				return i + 1
			}
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
		if full == want || strings.HasPrefix(want, full+".") {
			return i + 1
		}
	}
	return 0
}

func normKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
