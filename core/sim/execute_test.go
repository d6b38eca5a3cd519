package sim

import (
	"math"
	"testing"
)

// surelyAbove and beyond are never wrong when they say true: the
// divisions they spare would give what they claim.
func TestSurelyAboveNeverWrong(t *testing.T) {
	r := newPRNG(9, 10)
	sure := 0
	for range 200_000 {
		e := r.Float64() * math.Pow(10, float64(r.Uint64N(8))-4)
		n := r.Uint64N(1000)
		d := float64(n)*e + (r.Float64()-0.5)*e*1e-9*float64(r.Uint64N(3))
		if e <= 0 {
			continue
		}
		if surelyAbove(d, e, n) {
			sure++
			if q := d / e; q < float64(n) {
				t.Fatalf("surelyAbove(%v, %v, %d) but d/e = %v", d, e, n, q)
			}
		}
		left := r.Uint64N(20000)
		if rem := r.Float64() * 2 * float64(left+1) * e; beyond(rem, e, left) && wholeAtLeast1(rem/e-eps) <= left {
			t.Fatalf("beyond(%v, %v, %d) but the overflow comes after %d", rem, e, left, wholeAtLeast1(rem/e-eps))
		}
	}
	if sure == 0 {
		t.Fatal("surelyAbove never sure: the test tests nothing")
	}
}
