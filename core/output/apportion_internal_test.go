package output

import (
	"reflect"
	"testing"
)

func TestApportion(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		w    []float64
		want []int64
	}{
		{10, []float64{3, 1}, []int64{8, 2}},       // 7.5, 2.5: the tie goes to the earlier
		{10, []float64{1, 1, 1}, []int64{4, 3, 3}}, // remainders equal
		{7, []float64{0, 0}, []int64{7, 0}},        // no weight: undivided
		{5, []float64{2, 0, 3}, []int64{2, 0, 3}},
		{0, []float64{1, 2}, []int64{0, 0}},
		{1, []float64{1, 2}, []int64{0, 1}},
	} {
		got := apportion(tc.n, tc.w)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("apportion(%d, %v) = %v, want %v", tc.n, tc.w, got, tc.want)
		}
		var sum int64
		for _, v := range got {
			sum += v
		}
		if sum != tc.n {
			t.Errorf("apportion(%d, %v) adds up to %d", tc.n, tc.w, sum)
		}
	}
}
