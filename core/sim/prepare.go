package sim

import (
	"math"

	"github.com/proflab/proflab/core/workload"
)

// This file is workload preparation: the functions as the engine executes
// them, and the kinds of segment a thread's processor may run with their
// probabilities.

// segKind is what a processor is executing.
type segKind uint8

const (
	kindThread segKind = iota // a thread's function (user or kernel mode)
	kindISR
	kindDPC
	kindIdle
)

// fnInfo is a resolved function prepared for execution.
type fnInfo struct {
	addr  uint64
	ib    uint64 // instruction bytes
	n     uint64 // instruction slots
	cpi   float64
	rate  [nEvents]float64 // events per instruction (cycles: cpi)
	kmode bool
	loop  uint64
	comps []comp // address distribution (non-loop)
}

// comp is a component of a function's address distribution: slots
// [lo, hi) uniformly, with cumulative weight cum.
type comp struct {
	lo, hi uint64
	w, cum float64
}

func prepare(r *workload.Resolved) []fnInfo {
	ib := r.Spec.InstructionBytes
	out := make([]fnInfo, len(r.Funcs))
	for i, f := range r.Funcs {
		fi := fnInfo{addr: f.Addr, ib: ib, n: f.Instructions, cpi: f.CPI, kmode: f.Mode == workload.KernelMode, loop: f.LoopInstructions}
		fi.rate = [nEvents]float64{1, f.CPI, f.BranchRate, f.BranchRate * f.MispredictRate, f.CacheMissRate, f.CacheRefRate}
		var hot float64
		for _, h := range f.Hotspots {
			lo := h.Offset / ib
			hi := min(fi.n, max(lo+1, (h.Offset+h.Size+ib-1)/ib))
			lo = min(lo, fi.n-1)
			fi.comps = append(fi.comps, comp{lo: lo, hi: hi, w: h.Weight})
			hot += h.Weight
		}
		if rest := 1 - hot; rest > 1e-12 || len(fi.comps) == 0 {
			fi.comps = append(fi.comps, comp{lo: 0, hi: fi.n, w: max(rest, 0)})
		}
		var cum float64
		for j := range fi.comps {
			cum += fi.comps[j].w
			fi.comps[j].cum = cum
		}
		for j := range fi.comps {
			fi.comps[j].w /= cum
			fi.comps[j].cum /= cum
		}
		if fi.loop > 0 {
			fi.comps = []comp{{lo: 0, hi: fi.loop, w: 1, cum: 1}}
		}
		out[i] = fi
	}
	return out
}

// segType is one kind of segment a busy processor may run: a function
// executed as the thread's own code, in an ISR or in a DPC, with the
// probability that any one segment is of it. A thread's segments are
// independent draws from its types.
type segType struct {
	kind  segKind
	fn    int
	stack int // workload.Resolved.Stacks index, or workload.NoStack
	p     float64
}

// segTypes lists the segments a thread with the given mix runs: with
// probability kernel.interrupt_share an ISR function, with
// kernel.dpc_share a DPC function, otherwise one of its own, each set
// chosen from by weight.
func segTypes(r *workload.Resolved, mix []workload.Weighted) []segType {
	k := r.Spec.Kernel
	out := make([]segType, 0, len(r.ISR)+len(r.DPC)+len(mix))
	add := func(kind segKind, set []workload.Weighted, share float64) {
		var tot float64
		for _, w := range set {
			tot += w.Weight
		}
		if share <= 0 || tot <= 0 {
			return
		}
		for _, w := range set {
			if p := share * w.Weight / tot; p > 0 {
				out = append(out, segType{kind: kind, fn: w.Func, stack: w.Stack, p: p})
			}
		}
	}
	own := 1.0
	if len(r.ISR) > 0 {
		add(kindISR, r.ISR, k.InterruptShare)
		own -= k.InterruptShare
	}
	if len(r.DPC) > 0 {
		add(kindDPC, r.DPC, k.DPCShare)
		own -= k.DPCShare
	}
	add(kindThread, mix, own)
	return out
}

// segmentInstructions is the length of a segment of f: the workload's
// segment length, at least one cycle's worth of instructions.
func segmentInstructions(segLen uint64, f *fnInfo) uint64 {
	return max(segLen, uint64(math.Ceil(1/f.cpi)))
}
