package etlprof

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/etl"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// Names of the images that hold no file's code.
const (
	// JITImage holds a process's JIT-compiled .NET methods, each named
	// Namespace.MethodName at the addresses the CLR's method events give.
	JITImage = "[jit]"
	// UnknownImage holds a process's user-mode addresses in no image and
	// no method, each an unsymbolized function [unknown]+0xOFFSET: kept,
	// never dropped; UnknownKernel holds the kernel-mode ones.
	UnknownImage  = "[unknown]"
	UnknownKernel = "[unknown kernel]"
)

// where says what holds an address.
type where int

const (
	inImage where = iota
	inMethod
	inNothing
)

// namer names addresses: the function of an address of a process at a
// time, made in the model the first time.
type namer struct {
	tr      *trace
	m       *profmodel.Model
	syms    map[string][]etl.Symbol // by image name, lower case, sorted by RVA
	symUsed map[string]bool         // images whose listing named an address
	images  map[uint32][]image      // by pid, sorted by base
	methods map[uint32][]method     // by pid, sorted by start
	cache   map[[2]uint64]named
	// used are the images that named an address, in order of first use,
	// with their owner's pid (0: a kernel image)
	used    []ownedImage
	usedKey map[string]int
	// counts of addresses named, by what holds them (distinct per process)
	kinds [3]int
}

// ownedImage is an image with the pid whose image list holds it, and
// the samples whose IP it holds.
type ownedImage struct {
	pid    uint32
	img    image
	leaves int
}

// named is an address's function and what holds it.
type named struct {
	f     *profmodel.Func
	where where
	image string
	used  int // index in namer.used of an image's function, else -1
}

func newNamer(tr *trace, m *profmodel.Model, syms []etl.Symbol) *namer {
	n := &namer{tr: tr, m: m, syms: map[string][]etl.Symbol{}, symUsed: map[string]bool{},
		images: map[uint32][]image{}, methods: map[uint32][]method{}, cache: map[[2]uint64]named{}, usedKey: map[string]int{}}
	for _, s := range syms {
		k := strings.ToLower(s.Image)
		n.syms[k] = append(n.syms[k], s)
	}
	for _, list := range n.syms {
		slices.SortStableFunc(list, func(a, b etl.Symbol) int { return cmp.Compare(a.RVA, b.RVA) })
	}
	for pid, list := range tr.images {
		l := slices.Clone(list)
		slices.SortStableFunc(l, func(a, b image) int { return cmp.Compare(a.base, b.base) })
		for i := range l {
			l[i].key = fmt.Sprintf("%d:%x:%s", pid, l[i].base, l[i].path)
		}
		n.images[pid] = l
	}
	for pid, list := range tr.methods {
		l := slices.Clone(list)
		slices.SortStableFunc(l, func(a, b method) int { return cmp.Compare(a.start, b.start) })
		n.methods[pid] = l
	}
	return n
}

// name is the function of addr in process pid (the first time it is
// seen, at time t): in one of the process's images, else a kernel
// image's, else a JIT-compiled method of the process, else [unknown].
func (n *namer) name(pid uint32, addr uint64, t int64) named {
	key := [2]uint64{uint64(pid), addr}
	if nm, ok := n.cache[key]; ok {
		return nm
	}
	nm := n.resolve(pid, addr, t)
	n.cache[key] = nm
	n.kinds[nm.where]++
	return nm
}

func (n *namer) resolve(pid uint32, addr uint64, t int64) named {
	kernel := n.tr.isKernel(addr)
	if img, ok := findImage(n.images[pid], addr, t); ok {
		return n.inImage(pid, img, addr, kernel)
	}
	if img, ok := findImage(n.images[0], addr, t); ok {
		return n.inImage(0, img, addr, kernel)
	}
	if !kernel {
		if me, ok := findMethod(n.methods[pid], addr, t); ok {
			img := n.m.Image("jit:"+strconv.FormatUint(uint64(pid), 10), JITImage, false)
			f := n.m.Func(img, me.name)
			f.See(me.start)
			f.See(me.start + max(me.size, 1) - 1)
			return named{f: f, where: inMethod, image: JITImage, used: -1}
		}
	}
	ikey, iname := "?:"+strconv.FormatUint(uint64(pid), 10), UnknownImage
	if kernel {
		ikey, iname = "?:kernel", UnknownKernel
	}
	img := n.m.Image(ikey, iname, kernel)
	f := n.m.Func(img, profmodel.AddressName(addr))
	f.MarkUnsymbolized()
	return named{f: f, where: inNothing, image: iname, used: -1}
}

// inImage is the function of addr in img: the listing's function that
// spans it, else the unsymbolized IMAGE+0xRVA.
func (n *namer) inImage(pid uint32, img image, addr uint64, kernel bool) named {
	mi := n.m.Image(img.key, img.name, kernel || pid == 0)
	at, ok := n.usedKey[img.key]
	if !ok {
		at = len(n.used)
		n.usedKey[img.key] = at
		n.used = append(n.used, ownedImage{pid: pid, img: img})
	}
	mi.SetMapping(img.base, img.base+img.size)
	rva := addr - img.base
	if list := n.syms[strings.ToLower(img.name)]; len(list) > 0 {
		i, _ := slices.BinarySearchFunc(list, rva+1, func(s etl.Symbol, v uint64) int { return cmp.Compare(s.RVA, v) })
		if i > 0 && rva < list[i-1].RVA+max(list[i-1].Size, 1) {
			s := list[i-1]
			f := n.m.Func(mi, s.Name)
			f.See(img.base + s.RVA)
			f.See(img.base + s.RVA + max(s.Size, 1) - 1)
			n.symUsed[img.name] = true
			return named{f: f, where: inImage, image: img.name, used: at}
		}
	}
	f := n.m.Func(mi, profmodel.AddressName(addr))
	f.MarkUnsymbolized()
	return named{f: f, where: inImage, image: img.name, used: at}
}

// findImage is the image of list (sorted by base) that spans addr: of
// several, the last loaded at or before t, else the first loaded.
func findImage(list []image, addr uint64, t int64) (image, bool) {
	end, _ := slices.BinarySearchFunc(list, addr+1, func(im image, v uint64) int { return cmp.Compare(im.base, v) })
	best, found := image{}, false
	for i := end - 1; i >= 0; i-- {
		im := list[i]
		if addr-im.base >= im.size {
			if addr-im.base > maxImageSize {
				break
			}
			continue
		}
		if !found || better(im.t, best.t, t) {
			best, found = im, true
		}
	}
	return best, found
}

// maxImageSize bounds the search for an image spanning an address: no
// image is larger (the largest kernel images are tens of MiB).
const maxImageSize = 1 << 32

// findMethod is the method of list (sorted by start) whose code spans
// addr: of several, the last loaded at or before t, else the first.
func findMethod(list []method, addr uint64, t int64) (method, bool) {
	end, _ := slices.BinarySearchFunc(list, addr+1, func(m method, v uint64) int { return cmp.Compare(m.start, v) })
	best, found := method{}, false
	for i := end - 1; i >= 0 && end-i <= maxMethodScan; i-- {
		me := list[i]
		if addr-me.start >= me.size {
			continue
		}
		if !found || better(me.t, best.t, t) {
			best, found = me, true
		}
	}
	return best, found
}

// maxMethodScan bounds the methods looked at below an address (methods
// are small and rarely overlap).
const maxMethodScan = 64

// better says whether an event at time a is a better choice than one at
// b for something in force at time t: the latest at or before t, else
// the earliest.
func better(a, b, t int64) bool {
	switch {
	case a <= t && b <= t:
		return a > b
	case a <= t:
		return true
	case b <= t:
		return false
	}
	return a < b
}
