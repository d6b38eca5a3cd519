package workload

import (
	"bytes"
	"fmt"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/tomlstrict"
)

// Load reads a workload TOML file strictly (see [Parse]).
func Load(path string) (*Spec, error) {
	data, err := input.ReadFile(input.Workload, path)
	if input.Refused(err) {
		return nil, err
	}
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
	if _, err := tomlstrict.Decode(name, data, &s, tomlstrict.Options{}); err != nil {
		return nil, err
	}
	return &s, nil
}

// Encode is s as TOML (the resolved-config output): what [WriteTOML]
// writes.
func Encode(s *Spec) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteTOML(&b, s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
