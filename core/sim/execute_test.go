package sim

import (
	"github.com/proflab/proflab/halplugins/hal"
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

// The divisions execute spares where a segment's end or less than a
// segment's events are left give what it takes instead: a segment's last
// instruction completes at its end cycle, and fewer events than a
// segment's most leave no whole segment to skip.
func TestExecuteShortcuts(t *testing.T) {
	r := newPRNG(11, 12)
	for i := range 100_000 {
		cpi := []float64{1, 0.5, 0.25, 1.5, 3.7}[i%5]
		if i%3 == 0 {
			cpi = 0.1 + 4*r.Float64()
		}
		n := 1 + r.Uint64N(20000)
		cl := segClass{n: n, cpi: cpi}
		start := r.Uint64N(1 << 40)
		if d := cl.instrAt(start, cl.cycleAt(start, n)); d != n {
			t.Fatalf("cpi %v, %d instructions from cycle %d: instrAt(its end) = %d", cpi, n, start, d)
		}
		e := r.Float64() * math.Pow(10, float64(r.Uint64N(10))-4)
		if e <= 0 {
			continue
		}
		for _, d := range []float64{e, math.Nextafter(e, 0), e * r.Float64(), 0} {
			if m := wholeAtLeast1(d/e) - 1; m != 0 {
				t.Fatalf("%v events left, %v a segment: %d whole segments, want 0", d, e, m)
			}
		}
	}
}

// randomEvents is a truth's events so far and rates of events per
// instruction (some 0, some above 1), for the addEvents tests.
func randomEvents(r prng) (ev, rate [nEvents]float64) {
	for e := range nEvents {
		ev[e] = r.Float64() * 1e6
		rate[e] = r.Float64() * float64(r.Uint64N(3))
	}
	return ev, rate
}

// addEvents adds what the loop over the events adds, event by event.
func TestAddEvents(t *testing.T) {
	r := newPRNG(13, 14)
	for range 1000 {
		got, rate := randomEvents(r)
		want := got
		n := float64(r.Uint64N(1 << 20))
		addEvents(&got, n, &rate)
		for e := range nEvents {
			want[e] += n * rate[e]
		}
		if got != want {
			t.Fatalf("addEvents(%v, %v, %v) = %v, want %v", want, n, rate, got, want)
		}
	}
}

// A counter's skid from its table is the skid the walk over the
// distribution gives, for every draw; past maxSkidTable there is no
// table and the walk is used.
func TestSkidTableIsTheWalk(t *testing.T) {
	walk := func(skid []hal.SkidWeight, u uint64) uint64 {
		for _, w := range skid {
			if u < uint64(w.Weight) {
				return uint64(w.Instructions)
			}
			u -= uint64(w.Weight)
		}
		return 0
	}
	for _, skid := range [][]hal.SkidWeight{
		{{Instructions: 1, Weight: 60}, {Instructions: 2, Weight: 25}, {Instructions: 3, Weight: 10}, {Instructions: 4, Weight: 5}},
		{{Instructions: 0, Weight: 1}},
		{{Instructions: 1000, Weight: 3}, {Instructions: 0, Weight: 1021}},
		{{Instructions: 7, Weight: 1000}, {Instructions: 9, Weight: 25}}, // 1025: no table
	} {
		k := counterHW{skid: skid}
		for _, w := range skid {
			k.skidTotal += uint64(w.Weight)
		}
		k.skidOf = skidTable(k.skid, k.skidTotal)
		if (k.skidOf != nil) != (k.skidTotal <= maxSkidTable) {
			t.Fatalf("total %d: table %v, want one only up to %d", k.skidTotal, k.skidOf != nil, maxSkidTable)
		}
		for u := range k.skidTotal {
			if got, want := k.skidAt(u), walk(skid, u); got != want {
				t.Fatalf("%v: skidAt(%d) = %d, the walk gives %d", skid, u, got, want)
			}
		}
	}
}

// The skip's bound from a counter is not lowered where surelyAbove says
// the division would give at least n+1 (the division it spares).
func TestSkipBoundShortcut(t *testing.T) {
	r := newPRNG(17, 18)
	spared := 0
	for range 200_000 {
		e := 1 + r.Float64()*float64(r.Uint64N(1<<20))
		n := 1 + r.Uint64N(100)
		d := e * (float64(n) + 1 + (r.Float64()-0.5)*1e-9*float64(r.Uint64N(3)))
		if surelyAbove(d, e, n+1) {
			spared++
			if got := min(n, wholeAtLeast1(d/e)-1); got != n {
				t.Fatalf("d %v, e %v: the division bounds %d segments below n = %d, but it was spared", d, e, got, n)
			}
		}
	}
	if spared == 0 {
		t.Fatal("never spared: the test tests nothing")
	}
}

// addEventsN is k calls of addEvents, to the bit.
func TestAddEventsN(t *testing.T) {
	r := newPRNG(21, 22)
	for range 2000 {
		got, rate := randomEvents(r)
		want := got
		n := float64(1 + r.Uint64N(1<<20))
		k := r.Uint64N(300)
		addEventsN(&got, n, &rate, k)
		for range k {
			addEvents(&want, n, &rate)
		}
		if got != want {
			t.Fatalf("addEventsN(%v, %d) = %v, %d addEvents give %v", n, k, got, k, want)
		}
	}
}
