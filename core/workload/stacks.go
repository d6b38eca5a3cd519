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
		if !rs.r.Funcs[k].Inline {
			def = append(def, Weighted{Func: k, Weight: rs.r.Funcs[k].Weight, Stack: NoStack})
		}
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
		inlined, ok := rs.inlined(sf, st.Inlined, frames)
		if !ok {
			continue
		}
		rst := ResolvedStack{Frames: frames, Inlined: inlined}
		out = append(out, Weighted{Func: frames[rst.Physical()], Weight: st.Weight, Stack: rs.stackIndex(rst)})
	}
	return rs.normalise(field, out)
}

// inlined resolves which frames of a stack (field sf) are inlined into
// the frame after them: those listed (1-based positions) and those of
// inline functions; nil when none is. ok is false after an error.
func (rs *resolver) inlined(sf func() string, listed []int, frames []int) (out []bool, ok bool) {
	mark := func(i int) {
		if out == nil {
			out = make([]bool, len(frames))
		}
		out[i] = true
	}
	ok = true
	for j, pos := range listed {
		switch {
		case pos < 1 || pos > len(frames):
			rs.c.add(fmt.Sprintf("%s.inlined[%d]", sf(), j+1), "frame %d does not exist: the stack has %d frames (1 is the leaf)", pos, len(frames))
			ok = false
		case pos == len(frames):
			rs.c.add(fmt.Sprintf("%s.inlined[%d]", sf(), j+1), "frame %d is the outermost: it has no caller to be inlined into", pos)
			ok = false
		default:
			mark(pos - 1)
		}
	}
	for i, f := range frames {
		if !rs.r.Funcs[f].Inline {
			continue
		}
		if i == len(frames)-1 {
			rs.c.add(fmt.Sprintf("%s.frames[%d]", sf(), i+1), "function %q is inline (it has no code of its own) but is the outermost frame: name the function it is inlined into after it", rs.r.Funcs[f].Name)
			ok = false
			continue
		}
		mark(i)
	}
	return out, ok
}

// stackIndex is the index in r.Stacks of stack st, added when it is
// new: threads running the same stack share its truth.
func (rs *resolver) stackIndex(st ResolvedStack) int {
	h := uint64(14695981039346656037) // FNV-1a over the frames
	for i, f := range st.Frames {
		x := uint64(f) << 1
		if st.IsInlined(i) {
			x |= 1
		}
		h = (h ^ x) * 1099511628211
	}
	first, ok := rs.stacks[h]
	if ok {
		for i := first; i >= 0; i = rs.sameHash[i] {
			if o := &rs.r.Stacks[i]; slices.Equal(o.Frames, st.Frames) && sameInlined(o, &st) {
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
	rs.r.Stacks = append(rs.r.Stacks, st)
	return i
}

// sameInlined reports whether two stacks of the same frames inline the
// same ones.
func sameInlined(a, b *ResolvedStack) bool {
	for i := range a.Frames {
		if a.IsInlined(i) != b.IsInlined(i) {
			return false
		}
	}
	return true
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
