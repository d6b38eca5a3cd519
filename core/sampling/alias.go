package sampling

import "math/rand/v2"

// aliasTable draws an index with given probabilities in constant time
// (Walker's alias method, in Vose's stable construction).
type aliasTable struct {
	prob  []float64 // the chance of keeping a column's own index
	alias []int32   // the column's other index
}

// newAlias makes the table of weights w (positive, any sum).
func newAlias(w []float64) aliasTable {
	k := len(w)
	t := aliasTable{prob: make([]float64, k), alias: make([]int32, k)}
	var sum float64
	for _, v := range w {
		sum += v
	}
	scaled := make([]float64, k)
	var small, large []int32
	for i, v := range w {
		scaled[i] = v * float64(k) / sum
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		t.prob[s], t.alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large, small = large[:len(large)-1], append(small, l)
		}
	}
	for _, i := range append(small, large...) { // rounding leaves these at 1
		t.prob[i], t.alias[i] = 1, i
	}
	return t
}

// draw is one index.
func (t aliasTable) draw(r *rand.Rand) int {
	u := float64(r.Float64() * float64(len(t.prob)))
	i := int(u)
	if i >= len(t.prob) {
		i = len(t.prob) - 1
	}
	if u-float64(i) < t.prob[i] {
		return i
	}
	return int(t.alias[i])
}
