package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/scenario"
)

// byteSize is a flag holding a size in bytes, written as people write
// them: 1GiB, 512MiB, 64KiB, 2GB, 1073741824; "0" or "none" for no limit.
type byteSize struct{ n int64 }

// units are the suffixes byteSize accepts, longest first.
var units = []struct {
	suffix string
	size   int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"kB", 1e3},
	{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1},
}

// parseByteSize reads a size; "0" and "none" are 0.
func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "none" {
		return 0, nil
	}
	mult := int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.size
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("%q is not a size: write it like 1GiB, 512MiB or 2GB (0 or none: no limit)", s)
	}
	return int64(v * float64(mult)), nil
}

func (b *byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	b.n = n
	return nil
}

func (b *byteSize) String() string {
	if b.n == 0 {
		return "none"
	}
	return strings.ReplaceAll(scenario.FormatBytes(b.n), " ", "")
}

func (b *byteSize) Type() string { return "size" }
