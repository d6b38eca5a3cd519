package importer

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
)

// Layout constants (docs/workload-import.md explains them).
const (
	// Padding is added after the highest address seen in a function (an
	// x86 instruction is at most 15 bytes; 16 keeps the last one whole),
	// cut short by the next function's first address.
	Padding = 16
	// SyntheticSize is the size of a function without addresses (a folded
	// frame, a pprof function that no location's address belongs to).
	SyntheticSize = 256
	// SyntheticAlign aligns the functions placed in an image's synthetic
	// area (after the source's range), and PageSize the origin of an image
	// without a mapping (the page below its lowest address).
	SyntheticAlign = 16
	PageSize       = 0x1000
	// ImageAlign aligns the base of an image packed into the target's
	// address space (Windows' allocation granularity).
	ImageAlign = 0x10000
)

// target is the machine's address space: the user and system regions
// (inclusive) and the built-in kernel image's range, which nothing may
// overlap.
type target struct {
	arch                 string
	userLo, userHi       uint64
	systemLo, systemHi   uint64
	reservedLo, reserved uint64 // ntoskrnl.exe's first address and size
}

// targetOf is the target of arch ("x86", "x64" or "" for x64).
func targetOf(arch string) (target, error) {
	switch arch {
	case "", "x64":
		return target{arch: "x64", userLo: ImageAlign, userHi: 0x7FFFFFFEFFFF,
			systemLo: 0xFFFF800000000000, systemHi: 0xFFFFFFFFFFFFFFFF,
			reservedLo: 0xFFFFF80000000000, reserved: 0x4000}, nil
	case "x86":
		return target{arch: "x86", userLo: ImageAlign, userHi: 0x7FFEFFFF,
			systemLo: 0x80000000, systemHi: 0xFFFFFFFF,
			reservedLo: 0x80400000, reserved: 0x4000}, nil
	}
	return target{}, fmt.Errorf("unknown architecture %q: give x86 or x64", arch)
}

// layout places every image's functions (offsets and sizes) and then the
// images in t's address space.
func (m *model) layout(t target) error {
	for _, img := range m.images {
		img.layout()
	}
	return m.relocate(t)
}

// layout places img's functions: a function with addresses spans them,
// from the lowest to the highest plus Padding (cut at the next function);
// where two functions' spans overlap, the one with more self weight keeps
// its addresses and the other moves to the synthetic area after the
// image's source range, keeping its internal layout; functions without
// addresses follow there, SyntheticSize bytes each.
func (img *image) layout() {
	img.setOrigin()
	var addressed, rest []*fn
	for _, f := range img.funcs {
		if f.hasAddr {
			addressed = append(addressed, f)
		} else {
			rest = append(rest, f)
		}
	}
	slices.SortStableFunc(addressed, func(a, b *fn) int {
		if c := cmp.Compare(b.self, a.self); c != 0 {
			return c
		}
		return cmp.Compare(a.lo, b.lo)
	})
	var kept, moved []*fn
	var spans spanSet
	for _, f := range addressed {
		if spans.insert(f.lo-img.origin, f.hi-img.origin) {
			kept = append(kept, f)
		} else {
			moved = append(moved, f)
		}
	}
	slices.SortFunc(kept, func(a, b *fn) int { return cmp.Compare(a.lo, b.lo) })
	var end uint64
	if img.hasRange {
		end = img.limit - img.origin
	}
	for i, f := range kept {
		f.offset = f.lo - img.origin
		f.size = f.hi - f.lo + Padding
		if i+1 < len(kept) {
			f.size = min(f.size, kept[i+1].lo-f.lo)
		}
		end = max(end, f.offset+f.size)
	}
	slices.SortStableFunc(moved, func(a, b *fn) int { return cmp.Compare(a.lo, b.lo) })
	for _, f := range moved {
		f.moved = true
		f.offset = alignUp(end, SyntheticAlign)
		f.size = f.hi - f.lo + Padding
		end = f.offset + f.size
	}
	for _, f := range rest {
		f.offset = alignUp(end, SyntheticSize)
		f.size = SyntheticSize
		end = f.offset + f.size
	}
	img.extent = end
}

// setOrigin sets the source address of the image's offset 0: its
// mapping's start, or (no mapping, or addresses below it) the page below
// its lowest address.
func (img *image) setOrigin() {
	lo, any := uint64(0), false
	for _, f := range img.funcs {
		if f.hasAddr && (!any || f.lo < lo) {
			lo, any = f.lo, true
		}
	}
	switch {
	case img.hasRange && (!any || lo >= img.start):
		img.origin = img.start
	case any:
		img.origin = lo &^ (PageSize - 1)
		img.hasRange = false
	}
}

// relocate gives every image a base in t: kernel images in system space,
// the others in user space. An image keeps its source origin as base when
// it fits its region and overlaps nothing placed before it (images are
// taken in order of origin); the others are packed, in order of first
// appearance, at the lowest ImageAlign-aligned address where they fit.
func (m *model) relocate(t target) error {
	user := &region{name: "user", lo: t.userLo, hi: t.userHi}
	system := &region{name: "system", lo: t.systemLo, hi: t.systemHi}
	system.used.add(t.reservedLo, t.reservedLo+t.reserved-1)
	byOrigin := slices.Clone(m.images)
	slices.SortStableFunc(byOrigin, func(a, b *image) int { return cmp.Compare(a.origin, b.origin) })
	var pack []*image
	for _, img := range byOrigin {
		r := user
		if img.kernel {
			r = system
		}
		if img.origin != 0 && r.fits(img.origin, img.extent) {
			img.base = img.origin
			r.used.add(img.base, img.base+max(img.extent, 1)-1)
			continue
		}
		pack = append(pack, img)
	}
	slices.SortStableFunc(pack, func(a, b *image) int { return cmp.Compare(m.index(a), m.index(b)) })
	for _, img := range pack {
		r := user
		if img.kernel {
			r = system
		}
		base, ok := r.find(img.extent)
		if !ok {
			return fmt.Errorf("image %q (0x%X bytes of functions) does not fit the %s machine's %s space (0x%X…0x%X) beside the other images: import for x64 (--arch x64), or trim the profile (pprof -focus, perf script --pid)",
				img.name, img.extent, t.arch, r.name, r.lo, r.hi)
		}
		img.base = base
		r.used.add(base, base+max(img.extent, 1)-1)
		if img.origin != 0 {
			m.note("image %q moved from 0x%X to 0x%X: its source addresses do not fit the %s machine's %s space beside the other images (offsets kept)", img.name, img.origin, base, t.arch, r.name)
		}
	}
	return nil
}

// index is img's position in m.images (order of first appearance).
func (m *model) index(img *image) int { return slices.Index(m.images, img) }

// region is an address range (inclusive) and the ranges used in it.
type region struct {
	name   string
	lo, hi uint64
	used   spanSet
}

// fits says whether [base, base+size) lies in r and overlaps nothing used.
func (r *region) fits(base, size uint64) bool {
	size = max(size, 1)
	last := base + size - 1
	if last < base || base < r.lo || last > r.hi {
		return false
	}
	return !r.used.overlaps(base, last)
}

// find is the lowest ImageAlign-aligned base where size bytes fit r.
func (r *region) find(size uint64) (uint64, bool) {
	size = max(size, 1)
	cand := alignUp(r.lo, ImageAlign)
	for _, s := range r.used {
		if cand+size-1 < cand {
			return 0, false
		}
		if s.hi < cand {
			continue
		}
		if cand+size-1 < s.lo {
			break
		}
		if s.hi == ^uint64(0) {
			return 0, false
		}
		next := alignUp(s.hi+1, ImageAlign)
		if next < s.hi {
			return 0, false
		}
		cand = next
	}
	if cand < r.lo || cand+size-1 < cand || cand+size-1 > r.hi {
		return 0, false
	}
	return cand, true
}

// spanSet is a sorted set of disjoint inclusive ranges.
type spanSet []span

type span struct{ lo, hi uint64 }

// overlaps says whether [lo, hi] meets a range of the set.
func (s spanSet) overlaps(lo, hi uint64) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].hi >= lo })
	return i < len(s) && s[i].lo <= hi
}

// insert adds [lo, hi] unless it overlaps the set, and says whether it did.
func (s *spanSet) insert(lo, hi uint64) bool {
	if s.overlaps(lo, hi) {
		return false
	}
	s.add(lo, hi)
	return true
}

// add adds [lo, hi], which overlaps nothing in the set.
func (s *spanSet) add(lo, hi uint64) {
	i := sort.Search(len(*s), func(i int) bool { return (*s)[i].lo > lo })
	*s = slices.Insert(*s, i, span{lo, hi})
}

// alignUp rounds v up to a multiple of a (a power of two); it saturates
// rather than wrapping.
func alignUp(v, a uint64) uint64 {
	r := (v + a - 1) &^ (a - 1)
	if r < v {
		return ^uint64(0) &^ (a - 1)
	}
	return r
}
