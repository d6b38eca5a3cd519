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

// shareOut gives each row's units in proportion to what each part has
// left, never more than that: rows that add up to the parts' totals end
// with every part given exactly its total.
func TestShareOut(t *testing.T) {
	for _, tc := range []struct {
		total []int64
		rows  []int64
	}{
		{[]int64{8, 2}, []int64{5, 5}},
		{[]int64{1, 0, 255}, []int64{1, 1, 1, 1, 252}},
		{[]int64{3, 3, 3}, []int64{0, 4, 5}},
		{[]int64{0, 7}, []int64{7}},
		{[]int64{1 << 40, 1}, []int64{1 << 39, 1<<39 + 1}},
	} {
		left := append([]int64(nil), tc.total...)
		got := make([]int64, len(left))
		for _, n := range tc.rows {
			before := append([]int64(nil), left...)
			out := shareOut(n, left)
			var sum int64
			for i, v := range out {
				if v < 0 || v > before[i] {
					t.Errorf("shareOut(%d, %v) gives part %d %d", n, before, i, v)
				}
				sum += v
				got[i] += v
			}
			if sum != n {
				t.Errorf("shareOut(%d, %v) = %v: adds up to %d", n, before, out, sum)
			}
		}
		if !reflect.DeepEqual(got, tc.total) {
			t.Errorf("rows %v over %v gave %v", tc.rows, tc.total, got)
		}
	}
	if got := shareOut(10, []int64{3, 1}); !reflect.DeepEqual(got, []int64{3, 1}) {
		t.Errorf("more units than left: %v, want all that is left", got)
	}
}
