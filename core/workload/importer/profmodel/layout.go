package profmodel

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload"
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
	// FunctionAlign aligns a function's start as x86 and x64 linkers do
	// (MSVC's and GCC's 16 bytes; Go's 32 are a multiple): a function
	// kept at its addresses starts at its lowest address rounded down to
	// it (unless that reaches into the function before), so that a
	// bucket of up to 16 bytes holds one function's code.
	FunctionAlign = 16
	// SyntheticAlign aligns the functions placed in an image's synthetic
	// area (after the source's range), and PageSize the origin of an image
	// without a mapping (the page below its lowest address).
	SyntheticAlign = FunctionAlign
	PageSize       = 0x1000
	// ImageAlign aligns the base of an image packed into the target's
	// address space (Windows' allocation granularity).
	ImageAlign = 0x10000
)

// Target is the address space of the machine the workload is for: the
// user and system regions (inclusive) and the built-in kernel image's
// range, which nothing may overlap. TargetFor makes one.
type Target struct {
	arch                 string
	userLo, userHi       uint64
	systemLo, systemHi   uint64
	reservedLo, reserved uint64 // ntoskrnl.exe's first address and size
}

// Resolving is the target as [workload.Spec.Resolve] takes it: what
// m:run resolves a workload for on a machine of this architecture
// (MmUserProbeAddress is the byte past user space).
func (t Target) Resolving() workload.Target {
	return workload.Target{X86: t.arch == "x86", UserProbeAddress: t.userHi + 1}
}

// TargetFor is the target of arch ("x86", "x64" or "" for x64).
func TargetFor(arch string) (Target, error) {
	switch arch {
	case "", "x64":
		return Target{arch: "x64", userLo: ImageAlign, userHi: 0x7FFFFFFEFFFF,
			systemLo: 0xFFFF800000000000, systemHi: 0xFFFFFFFFFFFFFFFF,
			reservedLo: 0xFFFFF80000000000, reserved: 0x4000}, nil
	case "x86":
		return Target{arch: "x86", userLo: ImageAlign, userHi: 0x7FFEFFFF,
			systemLo: 0x80000000, systemHi: 0xFFFFFFFF,
			reservedLo: 0x80400000, reserved: 0x4000}, nil
	}
	return Target{}, fmt.Errorf("unknown architecture %q: give x86 or x64", arch)
}

// Layout places every image's functions (offsets and sizes), then the
// images in t's address space (kernel images in system space, the others
// in user space; each at its source address where it fits, the others
// packed), and names the functions of AddressName image+0xOFFSET. Its
// error says which image does not fit.
func (m *Model) Layout(t Target) error {
	for _, img := range m.images {
		img.layout()
	}
	if err := m.relocate(t); err != nil {
		return err
	}
	m.nameUnknown()
	return nil
}

// layout places img's functions. A function only ever inlined owns no
// address: it has none to place. A function with addresses spans them,
// from its start (the lowest address rounded down to FunctionAlign, not
// below the previous function's highest address; an unsymbolized
// address, image+0xOFFSET, starts at itself) to the highest plus
// Padding (cut at the next function's start). Spans may overlap
// (scattered pieces of one function, two static functions of one name):
// the functions kept at their source addresses are the set of
// non-overlapping spans with the most sampled (code) weight, then the
// most functions (weighted interval scheduling); the others move to the
// image's synthetic area, after its source range, with their sampled
// addresses in order and gaps above MaxGap shortened (keeping each
// address's position modulo 16, so 16-byte buckets see the same shape);
// functions with code but no addresses follow there, SyntheticSize bytes
// each.
func (img *Image) layout() {
	img.setOrigin()
	var addressed, rest []*Func
	for _, f := range img.funcs {
		switch {
		case !f.physical: // inline only: no code, no address
		case f.hasAddr:
			addressed = append(addressed, f)
		default:
			rest = append(rest, f)
		}
	}
	kept, moved := keepMost(addressed)
	var end uint64
	if img.hasRange {
		end = img.limit - img.origin
	}
	starts := make([]uint64, len(kept))
	for i, f := range kept {
		starts[i] = max(f.lo&^(FunctionAlign-1), img.origin)
		if f.unsymbolized {
			starts[i] = f.lo // an address, not a function a linker placed
		}
		if i > 0 {
			starts[i] = max(starts[i], kept[i-1].hi+1)
		}
	}
	for i, f := range kept {
		f.offset = starts[i] - img.origin
		f.size = f.hi - starts[i] + Padding
		if i+1 < len(kept) {
			f.size = min(f.size, starts[i+1]-starts[i])
		}
		f.hot = map[uint64]uint64{}
		for a := range f.leafAt {
			f.hot[a] = a - starts[i]
		}
		end = max(end, f.offset+f.size)
	}
	for _, f := range moved {
		f.moved = true
		f.offset = AlignUp(end, SyntheticAlign)
		f.compact()
		end = f.offset + f.size
	}
	for _, f := range rest {
		f.offset = AlignUp(end, SyntheticSize)
		f.size = SyntheticSize
		end = f.offset + f.size
	}
	img.extent = end
}

// MaxGap is the longest gap between two sampled addresses a moved
// function keeps (longer gaps shrink to MaxGap plus the gap modulo 16).
const MaxGap = 64

// compact lays a moved function out: its sampled addresses in order,
// gaps above MaxGap shortened, the first at offset (lowest address mod
// 16), Padding after the last.
func (f *Func) compact() {
	addrs := make([]uint64, 0, len(f.leafAt))
	for a := range f.leafAt {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	f.hot = map[uint64]uint64{}
	if len(addrs) == 0 {
		f.size = SyntheticSize
		return
	}
	off := addrs[0] % 16
	for i, a := range addrs {
		if i > 0 {
			gap := a - addrs[i-1]
			if gap > MaxGap {
				gap = MaxGap + gap%16
			}
			off += gap
		}
		f.hot[a] = off
	}
	f.size = off + Padding
}

// keepMost splits fs into the functions kept at their addresses (in
// address order) and those moved (in address order): the kept spans
// overlap nowhere and carry the most code weight, then the most
// functions.
func keepMost(fs []*Func) (kept, moved []*Func) {
	byEnd := slices.Clone(fs)
	slices.SortStableFunc(byEnd, func(a, b *Func) int {
		if c := cmp.Compare(a.hi, b.hi); c != 0 {
			return c
		}
		return cmp.Compare(a.lo, b.lo)
	})
	type score struct {
		w float64
		n int
	}
	better := func(a, b score) bool { return a.w > b.w || a.w == b.w && a.n > b.n }
	best := make([]score, len(byEnd)+1) // best[j]: of the first j spans
	take := make([]bool, len(byEnd)+1)
	prev := make([]int, len(byEnd)+1)
	for j := 1; j <= len(byEnd); j++ {
		f := byEnd[j-1]
		// p: the number of spans ending below f's start.
		p := sort.Search(j-1, func(i int) bool { return byEnd[i].hi >= f.lo })
		with := score{best[p].w + f.code, best[p].n + 1}
		prev[j] = p
		if better(with, best[j-1]) {
			best[j], take[j] = with, true
		} else {
			best[j] = best[j-1]
		}
	}
	in := map[*Func]bool{}
	for j := len(byEnd); j > 0; {
		if take[j] {
			in[byEnd[j-1]] = true
			j = prev[j]
		} else {
			j--
		}
	}
	for _, f := range fs {
		if in[f] {
			kept = append(kept, f)
		} else {
			moved = append(moved, f)
		}
	}
	byLo := func(a, b *Func) int { return cmp.Compare(a.lo, b.lo) }
	slices.SortStableFunc(kept, byLo)
	slices.SortStableFunc(moved, byLo)
	return kept, moved
}

// setOrigin sets the source address of the image's offset 0: its
// mapping's start, or (no mapping, or addresses below it) the page below
// its lowest address.
func (img *Image) setOrigin() {
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
func (m *Model) relocate(t Target) error {
	user := &region{name: "user", lo: t.userLo, hi: t.userHi}
	system := &region{name: "system", lo: t.systemLo, hi: t.systemHi}
	system.used.add(t.reservedLo, t.reservedLo+t.reserved-1)
	byOrigin := slices.Clone(m.images)
	slices.SortStableFunc(byOrigin, func(a, b *Image) int { return cmp.Compare(a.origin, b.origin) })
	var pack []*Image
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
	slices.SortStableFunc(pack, func(a, b *Image) int { return cmp.Compare(a.order, b.order) })
	var moved []string
	for _, img := range pack {
		r := user
		if img.kernel {
			r = system
		}
		base, ok := r.find(img.extent)
		if !ok {
			hint := "trim the profile (pprof -focus, perf script --pid)"
			if t.arch == "x86" {
				hint = "import for an x64 machine (--arch x64), or " + hint
			}
			return fmt.Errorf("image %q (0x%X bytes of functions) does not fit the %s machine's %s space (0x%X…0x%X) beside the other images: %s",
				img.name, img.extent, t.arch, r.name, r.lo, r.hi, hint)
		}
		img.base = base
		r.used.add(base, base+max(img.extent, 1)-1)
		if img.origin != 0 {
			moved = append(moved, fmt.Sprintf("%q from 0x%X to 0x%X (%s space)", img.name, img.origin, base, r.name))
		}
	}
	switch {
	case len(moved) == 1:
		m.Note("1 image moved: its source addresses do not fit the %s machine beside the other images (offsets kept): %s", t.arch, moved[0])
	case len(moved) > 1:
		// each image and where, as docs/workload-import.md (Addresses,
		// step 2) promises: a profile's addresses are read against these
		m.Note("%d images moved: their source addresses do not fit the %s machine beside the other images (offsets kept): %s", len(moved), t.arch, strings.Join(moved, ", "))
	}
	return nil
}

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
	cand := AlignUp(r.lo, ImageAlign)
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
		next := AlignUp(s.hi+1, ImageAlign)
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

// add adds [lo, hi], which overlaps nothing in the set.
func (s *spanSet) add(lo, hi uint64) {
	i := sort.Search(len(*s), func(i int) bool { return (*s)[i].lo > lo })
	*s = slices.Insert(*s, i, span{lo, hi})
}

// AlignUp rounds v up to a multiple of a (a power of two); it saturates
// rather than wrapping.
func AlignUp(v, a uint64) uint64 {
	r := (v + a - 1) &^ (a - 1)
	if r < v {
		return ^uint64(0) &^ (a - 1)
	}
	return r
}

// nameUnknown names the unsymbolized functions (provisional names from
// AddressName) image+0xOFFSET, the offset from the image's origin (its
// base in the workload).
func (m *Model) nameUnknown() {
	for _, img := range m.images {
		for _, f := range img.funcs {
			if rest, ok := strings.CutPrefix(f.name, unknownPrefix); ok {
				a, _ := strconv.ParseUint(rest, 16, 64)
				f.name = fmt.Sprintf("%s+0x%x", img.name, a-img.origin)
			}
		}
	}
}

// AddressName is the name to give the function of an address the source
// could not name (a perf frame's `[unknown]`): a provisional name, which
// Layout turns into image+0xOFFSET, the offset from the image's origin
// (its base in the workload), once the origin is known.
func AddressName(addr uint64) string { return unknownPrefix + strconv.FormatUint(addr, 16) }

// unknownPrefix starts the provisional names (no symbol has a NUL).
const unknownPrefix = "\x00unknown "
