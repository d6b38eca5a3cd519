package native

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// Garbage unwinds. A profiler that walks frame pointers through code
// built without them reads stack slots as return addresses: perf prints
// such frames as `[unknown] ([unknown])` with addresses such as
// 0x63636762696c0036 (the ASCII bytes of a string on the stack), and a
// kernel image can show one absurd address beside its real ones. Laid
// out as they are, one such address stretches its image over most of the
// address space, and the import cannot place it.
//
// The rule: an address that cannot belong to its image is an outlier.
// In a user image, an address at or above UserLimit (beyond every 64-bit
// user range) is one; of an image's other addresses, those outside the
// MaxImageSpan-wide window that holds the most of its frames (counted
// over the samples) are the others. An outlier frame stays in its stack
// (the calling context is kept, as perf report keeps it): named by its
// symbol when it has one, else as the function UnknownFunction of its
// image; either way without that address, which the layout never sees.
// A note counts them.

// Outlier bounds.
const (
	// UserLimit is the end of the largest user range of a 64-bit Linux
	// (x64 with 5-level paging: 2^56; x64 without it ends at 2^47, arm64
	// at 2^48 or 2^52, where its libraries are mapped near the top): a
	// user image's address at or above it is garbage.
	UserLimit = 1 << 56
	// MaxImageSpan is the widest range of addresses one image's code
	// spans (as MaxMapping, the largest mapping taken as code).
	MaxImageSpan = MaxMapping
)

// UnknownFunction names the function of an image that the outlier frames
// without a symbol become (perf prints them `[unknown]`).
const UnknownFunction = "[unknown]"

// addrCensus counts the addresses frames show, per image (by the
// format's key for it), to find the outliers.
type addrCensus struct {
	count  map[any]map[uint64]int64
	kernel map[any]bool
}

func newAddrCensus() *addrCensus {
	return &addrCensus{count: map[any]map[uint64]int64{}, kernel: map[any]bool{}}
}

// add counts one frame at addr in the image of key.
func (c *addrCensus) add(key any, kernel bool, addr uint64) {
	m := c.count[key]
	if m == nil {
		m = map[uint64]int64{}
		c.count[key] = m
		c.kernel[key] = kernel
	}
	m[addr]++
}

// outliers are the outlier addresses of every image (by key) that has
// some, and how many frames and distinct addresses they are.
func (c *addrCensus) outliers() (out map[any]map[uint64]bool, frames int64, addrs int) {
	out = map[any]map[uint64]bool{}
	for key, m := range c.count {
		set := outlierSet(m, c.kernel[key])
		if len(set) == 0 {
			continue
		}
		out[key] = set
		for a := range set {
			frames += m[a]
		}
		addrs += len(set)
	}
	return out, frames, addrs
}

// outlierSet is the outliers among an image's addresses (counted by
// frames): a user image's addresses at or above UserLimit, and those
// outside the MaxImageSpan-wide window holding the most frames (the
// lowest such window on a tie).
func outlierSet(count map[uint64]int64, kernel bool) map[uint64]bool {
	out := map[uint64]bool{}
	type addrCount struct {
		a uint64
		n int64
	}
	list := make([]addrCount, 0, len(count))
	for a, n := range count {
		if !kernel && a >= UserLimit {
			out[a] = true
			continue
		}
		list = append(list, addrCount{a, n})
	}
	slices.SortFunc(list, func(x, y addrCount) int { return cmp.Compare(x.a, y.a) })
	if len(list) == 0 || list[len(list)-1].a-list[0].a < MaxImageSpan {
		return out
	}
	var best, sum int64
	bi, bj, j := 0, 0, 0
	for i := range list {
		for j < len(list) && list[j].a-list[i].a < MaxImageSpan {
			sum += list[j].n
			j++
		}
		if sum > best {
			best, bi, bj = sum, i, j
		}
		sum -= list[i].n
	}
	for k, ac := range list {
		if k < bi || k >= bj {
			out[ac.a] = true
		}
	}
	return out
}

// noteOutliers writes the note on the outliers found, if any.
func noteOutliers(m *profmodel.Model, frames int64, addrs int, example string) {
	if frames == 0 {
		return
	}
	m.Note("%d frames (%d distinct addresses) had an address that cannot belong to their image (a garbage unwind: beyond every user range, or more than %d MiB from the image's other addresses; for one, %s): they stay in their stacks as their symbol or %s, without that address",
		frames, addrs, MaxImageSpan>>20, example, UnknownFunction)
}

// outlierExample names an outlier for the note.
func outlierExample(addr uint64, image string) string {
	return fmt.Sprintf("0x%X in %s", addr, image)
}
