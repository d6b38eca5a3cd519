package workload

import (
	"fmt"
	"slices"
)

// A workload's calling contexts. A thread runs, in this order of
// precedence, its run list, its own stacks, its process's stacks, its
// process's functions, or every user-mode function of the images. A
// stack's leaf is the function whose code runs; the frames above it only
// say who called it, so they change no execution, only the truth kept per
// stack and the stacks the profiles show.

// threadMix resolves what thread t (field tf) of process p (field pf)
// runs; procFuncs are the process's own functions.
func (rs *resolver) threadMix(pf, tf string, p *Process, t *Thread, procFuncs []int) []Weighted {
	switch {
	case len(t.Run) > 0 && len(t.Stacks) > 0:
		rs.c.add(tf, "gives both run and stack: a thread runs either functions or stacks")
		return nil
	case len(t.Stacks) > 0:
		return rs.stackMix(join(tf, "stack"), t.Stacks)
	case len(t.Run) == 0 && len(p.Stacks) > 0:
		// resolved once for all the process's threads (and its errors
		// said once)
		if m, ok := rs.procStacks[p]; ok {
			return m
		}
		m := rs.stackMix(join(pf, "stack"), p.Stacks)
		rs.procStacks[p] = m
		return m
	}
	var def []Weighted
	for _, k := range procFuncs {
		def = append(def, Weighted{Func: k, Weight: rs.r.Funcs[k].Weight, Stack: NoStack})
	}
	if len(def) == 0 {
		def = rs.userFuncs()
	}
	return rs.mix(join(tf, "run"), t.Run, def)
}

// stackMix resolves a list of stacks into a mix of their leaves, each in
// its calling context.
func (rs *resolver) stackMix(field string, stacks []Stack) []Weighted {
	out := make([]Weighted, 0, len(stacks))
	total := 0
	for _, st := range stacks {
		total += len(st.Frames)
	}
	all := make([]int, 0, total) // every stack's frames, in one array
	for j, st := range stacks {
		// the field's name is made only for an error (an imported
		// workload has tens of thousands of stacks)
		sf := func() string { return fmt.Sprintf("%s[%d]", field, j+1) }
		if !validWeight(st.Weight) {
			rs.c.weight(join(sf(), "weight"), st.Weight)
		}
		if len(st.Frames) == 0 {
			rs.c.add(join(sf(), "frames"), "must list at least one function (the leaf first)")
			continue
		}
		start := len(all)
		for k, ref := range st.Frames {
			i, msg := rs.names.find(ref, rs.r.Funcs)
			if i < 0 {
				rs.c.add(fmt.Sprintf("%s.frames[%d]", sf(), k+1), "%s", msg)
				all = all[:start]
				break
			}
			all = append(all, i)
		}
		if len(all) == start {
			continue
		}
		frames := all[start:len(all):len(all)]
		out = append(out, Weighted{Func: frames[0], Weight: st.Weight, Stack: rs.stackIndex(frames)})
	}
	return rs.normalise(field, out)
}

// stackIndex is the index in r.Stacks of the stack of these frames,
// added when it is new: threads running the same stack share its truth.
func (rs *resolver) stackIndex(frames []int) int {
	h := uint64(14695981039346656037) // FNV-1a over the frames
	for _, f := range frames {
		h = (h ^ uint64(f)) * 1099511628211
	}
	first, ok := rs.stacks[h]
	if ok {
		for i := first; i >= 0; i = rs.sameHash[i] {
			if slices.Equal(rs.r.Stacks[i].Frames, frames) {
				return i
			}
		}
	}
	i := len(rs.r.Stacks)
	next := -1
	if ok {
		next = first
	}
	rs.stacks[h] = i
	rs.sameHash = append(rs.sameHash, next)
	rs.r.Stacks = append(rs.r.Stacks, ResolvedStack{Frames: frames})
	return i
}

// Ref is the shortest reference to function i: its name, or
// "image!name" where several images define the name.
func (r *Resolved) Ref(i int) string {
	f := &r.Funcs[i]
	if r.names != nil && r.names.shared(f.Name) {
		return f.Ref()
	}
	return f.Name
}

// Frames is the calling context of w, leaf first: its stack's frames, or
// for a function drawn on its own, its caller chain.
func (r *Resolved) Frames(w Weighted) []int {
	if w.Stack >= 0 && w.Stack < len(r.Stacks) {
		return r.Stacks[w.Stack].Frames
	}
	return r.Stack(w.Func)
}
