package sim

import (
	"math"
)

// This file draws counts: how many of n independent segments fell in each
// class, without drawing the segments one by one.

// binomial draws from Binomial(n, p) exactly: by inversion when n·p is
// small (Kachitvichyanukul and Schmeiser's BINV), otherwise by rejection
// from a Lorentzian envelope (Press et al., Numerical Recipes, bnldev).
// Both cost O(1) draws in expectation, whatever n.
func binomial(rng prng, n uint64, p float64) uint64 {
	switch {
	case n == 0 || p <= 0:
		return 0
	case p >= 1:
		return n
	case p > 0.5:
		return n - binomial(rng, n, 1-p)
	}
	en := float64(n)
	if en*p < 16 {
		q := 1 - p
		s, a := p/q, (en+1)*p/q
		r0 := math.Pow(q, en)
		for {
			u, r, x := rng.Float64(), r0, uint64(0)
			for u > r && x <= n {
				u -= r
				x++
				r *= a/float64(x) - s
			}
			if x <= n {
				return x
			}
		}
	}
	am := float64(en * p)
	pc := 1 - p
	g, _ := math.Lgamma(en + 1)
	plog, pclog := math.Log(p), math.Log(pc)
	sq := math.Sqrt(2 * am * pc)
	for {
		var y, em float64
		for {
			y = math.Tan(math.Pi * rng.Float64())
			em = float64(sq*y) + am
			if em >= 0 && em < en+1 {
				break
			}
		}
		em = math.Floor(em)
		l1, _ := math.Lgamma(em + 1)
		l2, _ := math.Lgamma(en - em + 1)
		t := 1.2 * sq * (1 + float64(y*y)) * math.Exp(g-l1-l2+float64(em*plog)+float64((en-em)*pclog))
		if rng.Float64() <= t {
			return uint64(em)
		}
	}
}

// multinomial splits n draws over categories of probabilities p (summing
// to 1) into out, by conditional binomials.
func multinomial(rng prng, n uint64, p []float64, out []uint64) {
	rest := 1.0
	for i := range p {
		out[i] = 0
		if n == 0 {
			continue
		}
		if i == len(p)-1 || rest <= 0 {
			out[i] = n
			n = 0
			continue
		}
		q := min(max(p[i]/rest, 0), 1)
		k := binomial(rng, n, q)
		out[i] = k
		n -= k
		rest -= p[i]
	}
}

// aliasTable draws a category of fixed probabilities in O(1) with one
// uniform (Walker's alias method, Vose's construction): the category
// ⌊u·n⌋ is kept with its probability, or its alias taken.
type aliasTable struct {
	slots []aliasSlot
}

// aliasSlot is one column of an alias table: its own probability and its
// alias, side by side so that a draw touches one cache line.
type aliasSlot struct {
	prob  float64
	alias int
}

// build makes the table for weights w (not all zero), reusing its slices.
func (a *aliasTable) build(w []float64) {
	n := len(w)
	a.slots = append(a.slots[:0], make([]aliasSlot, n)...)
	sl := a.slots
	var tot float64
	for _, x := range w {
		tot += x
	}
	// the small and the large columns, as two stacks in one buffer (the
	// small from the front, the large from the back): no allocation for
	// the few categories of most tables
	var buf [32]int
	var idx []int
	if n <= len(buf) {
		idx = buf[:n]
	} else {
		idx = make([]int, n)
	}
	ns, nl := 0, n
	for i, x := range w {
		sl[i] = aliasSlot{prob: x * float64(n) / tot, alias: i}
		if sl[i].prob < 1 {
			idx[ns] = i
			ns++
		} else {
			nl--
			idx[nl] = i
		}
	}
	for ns > 0 && nl < n {
		s, l := idx[ns-1], idx[nl]
		ns--
		sl[s].alias = l
		sl[l].prob -= 1 - sl[s].prob
		if sl[l].prob < 1 {
			nl++
			idx[ns] = l
			ns++
		}
	}
	for _, i := range idx[nl:n] {
		sl[i].prob = 1
	}
	for _, i := range idx[:ns] { // rounding leftovers
		sl[i].prob = 1
	}
}

// draw is the category for a uniform u in [0, 1).
func (a *aliasTable) draw(u float64) int {
	x := u * float64(len(a.slots))
	i := int(x)
	if i >= len(a.slots) {
		i = len(a.slots) - 1
	}
	// a conditional move, not a branch: whether the alias is taken is as
	// random as the draw, and a branch would be mispredicted
	s := a.slots[i]
	if float64(x)-float64(i) >= s.prob {
		i = s.alias
	}
	return i
}
