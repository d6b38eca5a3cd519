package luavm

import (
	"fmt"
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// exactLimit is 2^53: every integer of smaller magnitude is exact as a Lua
// number (a float64), and none is guaranteed to be from there on.
const exactLimit = 1 << 53

// u64Hint is the advice given with every rejected number.
const u64Hint = `use lab.u64("0x…") for values of 2^53 and more`

// exactInt converts a Lua number that must be an exact integer: finite,
// integral and below 2^53 in magnitude.
func exactInt(f float64) (int64, error) {
	switch {
	case math.IsNaN(f):
		return 0, fmt.Errorf("got NaN, not a number (a hex literal of 2^63 or more reads as NaN in this Lua); %s", u64Hint)
	case math.IsInf(f, 0):
		return 0, fmt.Errorf("%s is not a finite number", FormatNumber(f))
	case f != math.Trunc(f):
		return 0, fmt.Errorf("%s is not an integer", FormatNumber(f))
	case f >= exactLimit || f <= -exactLimit:
		return 0, fmt.Errorf("%s is too large to be exact as a Lua number; %s", FormatNumber(f), u64Hint)
	}
	return int64(f), nil
}

// FormatNumber shows a number as Lua would, with large integers in hex too
// (so that a user sees what the parser made of a long hex literal).
func FormatNumber(f float64) string {
	s := strconv.FormatFloat(f, 'g', 17, 64)
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		s = strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}

// TypeName names a value's type for messages, u64 included.
func TypeName(lv lua.LValue) string {
	if _, ok := AsU64(lv); ok {
		return "u64"
	}
	if lv == nil {
		return "nil"
	}
	return lv.Type().String()
}

// widthMask is the mask of a parameter of width bytes (1, 2, 4 or 8).
func widthMask(width int) (uint64, error) {
	switch width {
	case 1, 2, 4:
		return 1<<(8*uint(width)) - 1, nil
	case 8:
		return math.MaxUint64, nil
	}
	return 0, fmt.Errorf("proflab bug: parameter width %d is not 1, 2, 4 or 8", width)
}

// serviceValue converts a service parameter of width bytes (1, 2, 4 or 8)
// as docs/scenario-api.md#values prescribes: nil is 0 (NULL); a number
// must be integral and below 2^53 in magnitude, a negative one being taken
// as its two's complement; a u64 is taken as is; the result is truncated
// to the parameter's width, as the calling convention would. Any other
// value is an error (the message names neither the function nor the
// argument: the caller adds them).
func serviceValue(lv lua.LValue, width int) (uint64, error) {
	mask, err := widthMask(width)
	if err != nil {
		return 0, err
	}
	switch v := lv.(type) {
	case nil:
		return 0, nil
	case *lua.LNilType:
		return 0, nil
	case lua.LNumber:
		i, err := exactInt(float64(v))
		if err != nil {
			return 0, err
		}
		return uint64(i) & mask, nil
	case lua.LString:
		return 0, fmt.Errorf("expected a number or a u64, got the string %q; %s", string(v), `write lab.u64("…") to pass a value written as a string`)
	}
	if u, ok := AsU64(lv); ok {
		return u & mask, nil
	}
	return 0, fmt.Errorf("expected a number or a u64, got %s", TypeName(lv))
}

// countValue converts an argument of the lab's own helpers (a size, a
// count, a processor number, a duration): a number or u64 that is integral
// and within [min, max]. Negative, fractional and out-of-range values are
// errors; nil is an error too (optional arguments are read by the caller).
func countValue(lv lua.LValue, min, max uint64) (uint64, error) {
	var u uint64
	switch v := lv.(type) {
	case lua.LNumber:
		f := float64(v)
		if f < 0 && f == math.Trunc(f) && !math.IsInf(f, 0) {
			return 0, fmt.Errorf("%s is negative; expected %s", FormatNumber(f), rangeText(min, max))
		}
		i, err := exactInt(f)
		if err != nil {
			return 0, err
		}
		u = uint64(i)
	default:
		x, ok := AsU64(lv)
		if !ok {
			return 0, fmt.Errorf("expected a number, got %s", TypeName(lv))
		}
		u = x
	}
	if u < min || u > max {
		return 0, fmt.Errorf("%d is out of range; expected %s", u, rangeText(min, max))
	}
	return u, nil
}

// rangeText describes [min, max] for messages.
func rangeText(min, max uint64) string {
	switch {
	case max == math.MaxUint64 && min == 0:
		return "a whole number of 0 or more"
	case max == math.MaxUint64:
		return fmt.Sprintf("a whole number of %d or more", min)
	}
	return fmt.Sprintf("a whole number from %d to %d", min, max)
}

// DataValue converts a value to store in width bytes (1, 2, 4 or 8): a
// number or u64 that fits, where a negative number is stored as its two's
// complement (-1 writes all ones) but must fit the signed range. Unlike
// Args.Service it never truncates: a value too wide is an error.
func DataValue(lv lua.LValue, width int) (uint64, error) {
	mask, err := widthMask(width)
	if err != nil {
		return 0, err
	}
	bits := 8 * uint(width)
	switch v := lv.(type) {
	case lua.LNumber:
		i, err := exactInt(float64(v))
		if err != nil {
			return 0, err
		}
		if i < 0 {
			if width < 8 && i < -(int64(1)<<(bits-1)) {
				return 0, fmt.Errorf("%d does not fit in %d bits", i, bits)
			}
			return uint64(i) & mask, nil
		}
		if uint64(i) > mask {
			return 0, fmt.Errorf("%d does not fit in %d bits", i, bits)
		}
		return uint64(i), nil
	}
	if u, ok := AsU64(lv); ok {
		if u > mask {
			return 0, fmt.Errorf("%s does not fit in %d bits", U64(u), bits)
		}
		return u, nil
	}
	return 0, fmt.Errorf("expected a number or a u64, got %s", TypeName(lv))
}
