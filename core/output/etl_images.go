package output

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"unicode"

	"github.com/proflab/proflab/core/etl"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
)

// This file is what an .etl says of the images a run knows: the
// workloads' images (a kernel image in process 0, a user image in every
// process of the workload that loaded it), each process's own functions
// as an image named after the process, with each image's functions for
// the symbol listing (trace.symbols) and a PDB identity derived from
// the image.

// etlImage is one image loaded in one process.
type etlImage struct {
	name       string // the base name the trace gives it ("app.exe")
	base, size uint64
	pid        uint32
	kernel     bool
	funcs      []workload.Func // address order
	pdb        etl.PDB
	stamp      uint32 // TimeDateStamp
}

// imageAlign is the alignment of an image whose workload gives no base:
// Windows' allocation granularity.
const imageAlign = 0x10000

// etlImages collects the images of every workload the machine ran, in a
// fixed order: kernel images first, then by process id, then by base.
func etlImages(e *Machine) []etlImage {
	type key struct {
		name string
		pid  uint32
	}
	byKey := map[key]*etlImage{}
	var order []key
	pids := e.Kernel.ProcessesByName()
	if e.Sim == nil {
		return nil
	}
	for _, res := range e.Sim.Results() {
		w := res.Workload
		procPID := make([]uint32, len(w.Spec.Processes))
		for i, p := range w.Spec.Processes {
			if kp, ok := p.Proc.(*kernel.Process); ok {
				procPID[i] = kp.ID()
			} else if kp := pids[p.Name]; kp != nil {
				procPID[i] = kp.ID()
			}
		}
		imgBase := map[string]uint64{}
		for _, im := range w.Spec.Images {
			imgBase[im.Name] = uint64(im.Base)
		}
		add := func(name string, pid uint32, kern bool, f workload.Func) {
			k := key{traceImageName(name), pid}
			im := byKey[k]
			if im == nil {
				im = &etlImage{name: k.name, pid: pid, kernel: kern, base: imgBase[name]}
				byKey[k] = im
				order = append(order, k)
			}
			for _, g := range im.funcs {
				if g.Addr == f.Addr && g.Name == f.Name {
					return
				}
			}
			im.funcs = append(im.funcs, f)
		}
		for _, f := range w.Funcs {
			if f.Inline || f.Size == 0 {
				continue
			}
			switch {
			case f.Process >= 0:
				add(imageFileName(w.Spec.Processes[f.Process].Name), procPID[f.Process], false, f)
			case f.Mode == workload.KernelMode:
				add(f.Image, 0, true, f)
			default:
				for _, pid := range procPID {
					add(f.Image, pid, false, f)
				}
			}
		}
	}
	out := make([]etlImage, 0, len(order))
	for _, k := range order {
		im := byKey[k]
		sort.SliceStable(im.funcs, func(i, j int) bool { return im.funcs[i].Addr < im.funcs[j].Addr })
		lo, hi := im.funcs[0].Addr, uint64(0)
		for _, f := range im.funcs {
			hi = max(hi, f.Addr+f.Size)
		}
		if im.base == 0 || im.base > lo {
			im.base = lo &^ (imageAlign - 1)
		}
		im.size = (hi - im.base + 0xFFF) &^ 0xFFF
		im.pdb, im.stamp = pdbIdentity(im)
		out = append(out, *im)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.kernel != b.kernel {
			return a.kernel
		}
		if a.pid != b.pid {
			return a.pid < b.pid
		}
		return a.base < b.base
	})
	return out
}

// traceImageName is an image's name as the trace gives it: white space
// becomes "_", so that the symbol listing (fields separated by spaces)
// can name the image.
func traceImageName(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, name)
}

// imageFileName is the image a process's own functions are given: the
// process's name, with ".exe" when it has no extension.
func imageFileName(process string) string {
	if path.Ext(process) == "" {
		return process + ".exe"
	}
	return process
}

// pdbIdentity derives an image's PDB identity and TimeDateStamp from the
// image itself: h = SHA-256 of the image's name, a NUL, then one line
// "NAME RVA SIZE\n" per function in address order (RVA and SIZE in
// lower-case hexadecimal without 0x); the PDB's GUID is h's first 16
// bytes (stored as they are), its age 1, its file name the image's name
// with its extension replaced by ".pdb", and the image's TimeDateStamp
// h's bytes 16–19 read little-endian. The same image (name and
// functions) has the same identity in every run and on every machine.
func pdbIdentity(im *etlImage) (etl.PDB, uint32) {
	h := sha256.New()
	_, _ = io.WriteString(h, im.name)
	_, _ = h.Write([]byte{0})
	for _, f := range im.funcs {
		fmt.Fprintf(h, "%s %x %x\n", f.Name, f.Addr-im.base, f.Size)
	}
	sum := h.Sum(nil)
	var g etl.GUID
	copy(g[:], sum[:16])
	return etl.PDB{Signature: g, Age: 1, FileName: strings.TrimSuffix(im.name, path.Ext(im.name)) + ".pdb"},
		binary.LittleEndian.Uint32(sum[16:])
}

// ntPath is an image's NT path in the trace: a kernel image under
// \SystemRoot\system32\drivers (ntoskrnl.exe and hal.dll under
// \SystemRoot\system32), a user image under
// \Device\HarddiskVolume1\proflab\.
func (im *etlImage) ntPath() string {
	switch {
	case !im.kernel:
		return `\Device\HarddiskVolume1\proflab\` + im.name
	case strings.EqualFold(im.name, workload.DefaultKernelImage) || strings.EqualFold(im.name, "hal.dll"):
		return `\SystemRoot\system32\` + im.name
	}
	return `\SystemRoot\system32\drivers\` + im.name
}

func (im *etlImage) record() etl.Image {
	return etl.Image{ImageBase: im.base, ImageSize: im.size, ProcessID: im.pid, TimeDateStamp: im.stamp, DefaultBase: im.base, FileName: im.ntPath()}
}

// writeSymbolListing writes the symbol listing of images (etl.WriteSymbols:
// `IMAGE RVA SIZE NAME` a line, docs/etl.md), each image's functions
// once even when several processes load it.
func writeSymbolListing(w io.Writer, images []etlImage) error {
	var syms []etl.Symbol
	seen := map[string]bool{}
	for _, im := range images {
		if seen[im.name] {
			continue
		}
		seen[im.name] = true
		for _, f := range im.funcs {
			syms = append(syms, etl.Symbol{Image: im.name, RVA: f.Addr - im.base, Size: f.Size, Name: f.Name})
		}
	}
	return etl.WriteSymbols(w, syms)
}
