package profmodel

import (
	"cmp"
	"maps"
	"slices"

	"github.com/proflab/proflab/core/workload"
)

// Spec writes the laid-out model as a workload of that name: images in
// address order with their functions in offset order, each function's
// weight its self weight and its hotspots the per-address distribution
// of that weight; processes with their threads' stacks, heaviest first.
// A note counts the names (the workload's among them) whose bytes that
// are not UTF-8 were replaced.
func (m *Model) Spec(name string) *workload.Spec {
	name = m.valid(name)
	m.deepWarning()
	if m.invalid > 0 {
		m.Note("%d names had bytes that are not UTF-8; they are replaced by U+FFFD", m.invalid)
	}
	s := &workload.Spec{Name: name, InstructionBytes: 1, CreateProcesses: true}
	imgs := slices.Clone(m.images)
	slices.SortFunc(imgs, func(a, b *Image) int { return cmp.Compare(a.base, b.base) })
	for _, img := range imgs {
		if len(img.funcs) == 0 {
			continue
		}
		wi := workload.Image{Name: img.name, Base: workload.Address(img.base), Kernel: img.kernel}
		fs := slices.Clone(img.funcs)
		slices.SortFunc(fs, func(a, b *Func) int { return cmp.Compare(a.offset, b.offset) })
		wi.Functions = make([]workload.Function, 0, len(fs))
		for _, f := range fs {
			wi.Functions = append(wi.Functions, f.function())
		}
		s.Images = append(s.Images, wi)
	}
	refs := m.refs()
	for _, p := range m.procs {
		wp := workload.Process{Name: p.name}
		for _, t := range p.threads {
			wp.Threads = append(wp.Threads, workload.Thread{Busy: t.busy(), Stacks: t.workloadStacks(refs)})
		}
		s.Processes = append(s.Processes, wp)
	}
	return s
}

// function is f as a workload function: an inline-only one has no
// code; the others weigh the samples that ran their code (theirs and
// their inlined callees'), spread over its sampled addresses.
func (f *Func) function() workload.Function {
	if !f.physical {
		return workload.Function{Name: f.name, Inline: true}
	}
	wf := workload.Function{Name: f.name, Offset: workload.Address(f.offset), Size: f.size, Weight: f.code}
	if f.cpi > 0 {
		wf.Weight /= f.cpi // instructions, as the stacks' weights (see workloadStacks)
	}
	if f.code > 0 && len(f.leafAt) > 0 {
		addrs := slices.Sorted(maps.Keys(f.leafAt))
		for _, a := range addrs {
			// (at most 1: code and leafAt are sums of the same weights
			// in different orders, and may round apart)
			wf.Hotspots = append(wf.Hotspots, workload.Hotspot{Offset: f.hot[a], Size: 1, Weight: min(1, f.leafAt[a]/f.code)})
		}
	}
	f.rates(&wf)
	return wf
}

// refs are the function references stacks use: the name, or
// "image!name" when several images define the name.
func (m *Model) refs() map[*Func]string {
	count := map[string]int{}
	for _, img := range m.images {
		for _, f := range img.funcs {
			count[f.name]++
		}
	}
	refs := map[*Func]string{}
	for _, img := range m.images {
		for _, f := range img.funcs {
			refs[f] = f.name
			if count[f.name] > 1 {
				refs[f] = img.name + "!" + f.name
			}
		}
	}
	return refs
}

// workloadStacks are t's stacks, heaviest first (ties in order of first
// appearance in the source), with the positions of their inlined frames.
// A sample's weight is time (or the event sampled); a workload's weight
// is a share of instructions, so a stack whose code (its physical
// frame's) has a CPI of its own weighs its time over that CPI: the lab
// then spends the source's time in it.
func (t *Thread) workloadStacks(refs map[*Func]string) []workload.Stack {
	out := make([]workload.Stack, 0, len(t.order))
	for _, s := range t.order {
		frames := make([]string, len(s.frames))
		var inlined []int
		phys := -1
		for i, f := range s.frames {
			frames[i] = refs[f]
			if i < len(s.inlined) && s.inlined[i] {
				inlined = append(inlined, i+1)
			} else if phys < 0 {
				phys = i
			}
		}
		w := s.weight
		if cpi := s.frames[phys].cpi; cpi > 0 {
			w /= cpi
		}
		out = append(out, workload.Stack{Frames: frames, Inlined: inlined, Weight: w})
	}
	slices.SortStableFunc(out, func(a, b workload.Stack) int { return cmp.Compare(b.Weight, a.Weight) })
	return out
}
