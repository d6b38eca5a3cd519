package sim

import "testing"

// A slice taken from the pool is all zeros and of the length asked for,
// whatever the slice put back held; one too short is not reused.
func TestSlicePoolZeroes(t *testing.T) {
	var sp slicePool[uint64]
	for _, tt := range []struct{ put, get int }{{8, 8}, {8, 3}, {3, 8}, {0, 5}, {5, 0}} {
		s := make([]uint64, tt.put)
		for i := range s {
			s[i] = uint64(i + 1)
		}
		sp.put(s)
		got := sp.get(tt.get)
		if len(got) != tt.get {
			t.Fatalf("put %d, get %d: length %d", tt.put, tt.get, len(got))
		}
		for i, v := range got {
			if v != 0 {
				t.Fatalf("put %d, get %d: [%d] = %d, want 0", tt.put, tt.get, i, v)
			}
		}
	}
}
