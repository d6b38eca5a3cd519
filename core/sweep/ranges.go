package sweep

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/proflab/proflab/core/suggest"
)

// rangeKeys are the keys of a range table.
var rangeKeys = []string{"from", "to", "steps", "scale"}

// unknownKey is the message for a key of a table that does not take it
// (what says which, " in a range"): the nearest key it takes, as the
// decoder suggests one (core/suggest), and the keys it takes.
func unknownKey(what, key string, known []string) string {
	msg := "unknown key" + what
	if near := suggest.Closest(key, known); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return msg + "; known: " + strings.Join(known, ", ")
}

// rangeValues expands { from, to, steps, scale }.
func (p *problems) rangeValues(key toml.Key, t map[string]any) ([]any, bool) {
	ok := true
	for _, k := range sortedKeys(t) {
		if !slices.Contains(rangeKeys, k) {
			p.add(append(key, k), "%s", unknownKey(" in a range", k, rangeKeys))
			ok = false
		}
	}
	num := func(k string) (float64, bool, bool) { // value, integral, present
		switch x := t[k].(type) {
		case int64:
			return float64(x), true, true
		case float64:
			if finite(x) {
				return x, false, true
			}
			p.add(append(key, k), "%s", describe(x))
		case nil:
			p.add(key, "a range needs %q", k)
		default:
			p.add(append(key, k), "%s, want a number", describe(x))
		}
		ok = false
		return 0, false, false
	}
	from, fromInt, _ := num("from")
	to, toInt, _ := num("to")
	steps := int64(0)
	switch x := t["steps"].(type) {
	case int64:
		steps = x
		if x < 2 || x > 100_000 {
			p.add(append(key, "steps"), "%d, want 2…100000 values (a single value goes in [set])", x)
			ok = false
		}
	case nil:
		p.add(key, "a range needs \"steps\", the number of values")
		ok = false
	default:
		p.add(append(key, "steps"), "%s, want an integer", describe(x))
		ok = false
	}
	scale := "linear"
	if s, present := t["scale"]; present {
		str, isStr := s.(string)
		if !isStr || (str != "linear" && str != "log") {
			p.add(append(key, "scale"), "%v, want \"linear\" or \"log\"", s)
			ok = false
		}
		scale = str
	}
	if !ok {
		return nil, false
	}
	if scale == "log" && (from <= 0 || to <= 0) {
		p.add(key, "a log range needs from and to above 0")
		return nil, false
	}
	out := make([]any, 0, steps)
	if fromInt && toInt {
		// integers are computed as integers: a float64 holds them exactly
		// only below 2^53, and its rounding must not turn the endpoints
		// into other numbers, nor 2^63-1 into -2^63
		ends := [2]int64{t["from"].(int64), t["to"].(int64)}
		for i := range steps {
			var v int64
			if scale == "log" {
				v = logStep(ends, i, steps)
			} else {
				v = linearStep(ends, i, steps)
			}
			if len(out) > 0 && out[len(out)-1] == any(v) {
				p.add(key, "%d integer steps between %d and %d repeat a value; use fewer steps or a wider range", steps, ends[0], ends[1])
				return nil, false
			}
			out = append(out, v)
		}
		return out, true
	}
	for i := range steps {
		frac := float64(i) / float64(steps-1)
		v := from + float64(frac*(to-from))
		if scale == "log" {
			v = math.Exp(math.Log(from) + float64(frac*(math.Log(to)-math.Log(from))))
		}
		if i == steps-1 {
			v = to
		}
		if !finite(v) {
			p.add(key, "the range from %v to %v overflows a float64 (value %d is %v); use a narrower range", from, to, i+1, v)
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// linearStep is value i of the n evenly spaced integers from ends[0] to
// ends[1]: from + i·(to−from)/(n−1), rounded half away from zero, computed
// exactly (the span of two int64 may not fit one).
func linearStep(ends [2]int64, i, n int64) int64 {
	from, to := big.NewInt(ends[0]), big.NewInt(ends[1])
	den := big.NewInt(n - 1)
	// v·den = from·(n−1) + i·(to−from)
	num := new(big.Int).Sub(to, from)
	num.Mul(num, big.NewInt(i))
	num.Add(num, new(big.Int).Mul(from, den))
	q, r := new(big.Int).QuoRem(num, den, new(big.Int)) // truncated toward 0
	if r.Abs(r).Lsh(r, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(int64(num.Sign())))
	}
	return q.Int64() // between from and to
}

// logStep is value i of the n integers from ends[0] to ends[1] (both
// above 0) spaced evenly on a log scale, rounded: the endpoints exactly,
// the values between through float64 and kept between the endpoints.
func logStep(ends [2]int64, i, n int64) int64 {
	switch i {
	case 0:
		return ends[0]
	case n - 1:
		return ends[1]
	}
	from, to := float64(ends[0]), float64(ends[1])
	frac := float64(i) / float64(n-1)
	v := math.Round(math.Exp(math.Log(from) + float64(frac*(math.Log(to)-math.Log(from)))))
	lo, hi := min(ends[0], ends[1]), max(ends[0], ends[1])
	switch {
	case v <= float64(lo): // also where float64(lo) rounded up
		return lo
	case v >= float64(hi): // float64(hi) may be 2^63, which no int64 holds
		return hi
	}
	return int64(v)
}
