package config

import (
	"fmt"
	"strconv"
	"strings"
)

// ByteSize is a size in bytes written as people write budgets: "1GiB",
// "512MiB", "64KiB", "2GB", "1073741824"; "0" or "none" for no limit.
type ByteSize int64

// sizeUnits are the suffixes ParseByteSize accepts, longest first.
var sizeUnits = []struct {
	suffix string
	size   int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"kB", 1e3},
	{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1},
}

// ParseByteSize reads a size; "0" and "none" are 0.
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	if t == "none" {
		return 0, nil
	}
	mult := int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.size
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("%q is not a size: write it like \"1GiB\", \"512MiB\" or \"2GB\" (0 or \"none\": no limit)", s)
	}
	return ByteSize(v * float64(mult)), nil
}

// UnmarshalText parses a size.
func (b *ByteSize) UnmarshalText(text []byte) error {
	v, err := ParseByteSize(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// MarshalText writes the size in the largest binary unit that divides it
// ("1GiB"), "0" for none.
func (b ByteSize) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// String is the size as MarshalText writes it.
func (b ByteSize) String() string {
	for _, u := range sizeUnits[:4] {
		if b >= ByteSize(u.size) && int64(b)%u.size == 0 {
			return fmt.Sprintf("%d%s", int64(b)/u.size, u.suffix)
		}
	}
	return strconv.FormatInt(int64(b), 10)
}
