package sweep

import "math"

// finite reports whether x is neither NaN nor an infinity: the only
// floats a run's parameters may hold, since results.jsonl, the run id's
// hash and the scenario's lab.params all need a number.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// nonFinite writes a NaN or infinity as TOML does: nan, inf, -inf.
func nonFinite(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case x < 0:
		return "-inf"
	}
	return "inf"
}
