package sampling_test

import (
	"fmt"

	"github.com/proflab/proflab/core/sampling"
)

// A profile of 10,000 samples over three functions against the truth it
// was drawn from: the distance is what sampling alone gives, so the
// verdict is "within"; the same counts against a truth 5% off are beyond
// sampling error (p < 0.001).
func ExampleGoodnessOfFit() {
	counts := []uint64{5021, 2987, 1992}
	for _, truth := range [][]float64{{50, 30, 20}, {45, 35, 20}} {
		t, err := sampling.GoodnessOfFit(counts, truth)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("TV %.4f (sampling alone: %.4f on average), p %.3g by %s, beyond: %v\n", t.TV, t.Expected, t.P, t.Method, t.Beyond())
	}
	_, err := sampling.GoodnessOfFit([]uint64{0, 0}, []float64{1, 1})
	fmt.Println(err)
	// Output:
	// TV 0.0021 (sampling alone: 0.0054 on average), p 0.909 by monte carlo, beyond: false
	// TV 0.0521 (sampling alone: 0.0055 on average), p 1.33e-19 by bound, beyond: true
	// no samples
}

// Two profiles of one program, each a sample: the test carries both
// samples' errors.
func ExampleTwoSample() {
	t, err := sampling.TwoSample([]uint64{300, 200, 100}, []uint64{3100, 1950, 950})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("TV %.4f, p %.2f, beyond: %v\n", t.TV, t.P, t.Beyond())
	// Output:
	// TV 0.0167, p 0.83, beyond: false
}
