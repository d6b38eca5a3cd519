package etl

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// ParseGUID reads a GUID written as "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
// (braces allowed) into its stored form.
func ParseGUID(s string) (GUID, error) {
	var g GUID
	t := strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	parts := strings.Split(t, "-")
	if len(parts) != 5 || len(parts[0]) != 8 || len(parts[1]) != 4 || len(parts[2]) != 4 || len(parts[3]) != 4 || len(parts[4]) != 12 {
		return g, fmt.Errorf("GUID %q: want the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", s)
	}
	b, err := hex.DecodeString(strings.Join(parts, ""))
	if err != nil {
		return g, fmt.Errorf("GUID %q: %v", s, err)
	}
	binary.LittleEndian.PutUint32(g[0:], binary.BigEndian.Uint32(b[0:]))
	binary.LittleEndian.PutUint16(g[4:], binary.BigEndian.Uint16(b[4:]))
	binary.LittleEndian.PutUint16(g[6:], binary.BigEndian.Uint16(b[6:]))
	copy(g[8:], b[8:])
	return g, nil
}

// MustGUID is ParseGUID for constants; it panics on a malformed literal,
// which only a programming error can give.
func MustGUID(s string) GUID {
	g, err := ParseGUID(s)
	if err != nil {
		panic(err)
	}
	return g
}

// String writes g in its usual form, lower case.
func (g GUID) String() string {
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x",
		binary.LittleEndian.Uint32(g[0:]), binary.LittleEndian.Uint16(g[4:]),
		binary.LittleEndian.Uint16(g[6:]), g[8:10], g[10:])
}
