package sim

// This file is the truth of calling contexts. A class whose members run
// in calling contexts (stacks) may hold tens of thousands of them, and a
// processor's truth is kept per function, not per stack; the truth per
// stack is one for the whole machine. So a class's deferred segments are
// drawn in two stages: when the processor settles them, how many each
// leaf (function and kind of code) ran, which is the processor's truth;
// at the end of the run, how many of each leaf's segments, over every
// processor, ran in each of its stacks. Both stages draw from the
// conditional distributions of the one draw per segment, so the counts
// have its distribution; the work is proportional to the leaves and
// stacks, not to the segments.

// leafSplit is a class's members grouped by leaf. (The segments of each
// leaf whose stacks a run has not drawn yet are the run's:
// runClassSet.pending.)
type leafSplit struct {
	leaves []leafGroup
	p      []float64 // each leaf's probability within the class
	pick   aliasTable
}

// leafGroup is the members of a class that run the same function as the
// same kind of code, with their probabilities within the group.
type leafGroup struct {
	ty     segType // the leaf (stack: any member's)
	stacks []int   // each member's stack (workload.NoStack: none)
	p      []float64
	pick   aliasTable
}

// newLeafSplit groups cl's members, of weights w (within the class), by
// leaf; nil when the class has a single member or none in a calling
// context.
func (rs *runState) newLeafSplit(cl *segClass, types []segType, w []float64) *leafSplit {
	if len(cl.members) < 2 {
		return nil
	}
	stacked := false
	for _, m := range cl.members {
		stacked = stacked || types[m].stack >= 0
	}
	if !stacked {
		return nil
	}
	sp := &leafSplit{}
	// each function and kind's leaf (-1: none yet), reset after
	leafOf := rs.classBuild.leafOf
	if len(leafOf) != len(rs.fns)*nKinds {
		leafOf = make([]int32, len(rs.fns)*nKinds)
		for i := range leafOf {
			leafOf[i] = -1
		}
		rs.classBuild.leafOf = leafOf
	}
	// first each member's leaf and each leaf's size, then the leaves'
	// members carved from one array (a class may hold tens of thousands
	// of stacks over thousands of leaves)
	leafOfMember := make([]int32, len(cl.members))
	var size []int
	for i, m := range cl.members {
		ty := types[m]
		k := ty.fn*nKinds + int(ty.kind)
		g := int(leafOf[k])
		if g < 0 {
			g = len(sp.leaves)
			leafOf[k] = int32(g)
			sp.leaves = append(sp.leaves, leafGroup{ty: ty})
			size = append(size, 0)
		}
		leafOfMember[i] = int32(g)
		size[g]++
	}
	for _, lg := range sp.leaves {
		leafOf[lg.ty.fn*nKinds+int(lg.ty.kind)] = -1
	}
	stacks, probs := make([]int, len(cl.members)), make([]float64, len(cl.members))
	slots := make([]aliasSlot, len(cl.members))
	at := 0
	for g := range sp.leaves {
		lg := &sp.leaves[g]
		n := size[g]
		lg.stacks, lg.p, lg.pick.slots = stacks[at:at:at+n], probs[at:at:at+n], slots[at:at:at+n]
		at += n
	}
	sp.p = make([]float64, len(sp.leaves))
	for i, m := range cl.members {
		g := leafOfMember[i]
		lg := &sp.leaves[g]
		lg.stacks = append(lg.stacks, types[m].stack)
		lg.p = append(lg.p, w[i])
		sp.p[g] += w[i]
	}
	for g := range sp.leaves {
		lg := &sp.leaves[g]
		lg.pick.build(lg.p)
		for j := range lg.p {
			lg.p[j] /= sp.p[g]
		}
	}
	var tot float64
	for _, x := range sp.p {
		tot += x
	}
	for g := range sp.p {
		sp.p[g] /= tot
	}
	sp.pick.build(sp.p)
	return sp
}

// nKinds is the number of kinds of code (segKind).
const nKinds = int(kindIdle) + 1

// drawCounts draws how n segments fall over outcomes of probabilities p
// (pick draws one by p): one draw per segment where there are fewer than
// 8 per outcome, else one binomial per outcome. Both have the same
// distribution.
func (rs *runState) drawCounts(n uint64, p []float64, pick *aliasTable) []uint64 {
	counts := append(rs.counts[:0], make([]uint64, len(p))...)
	rs.counts = counts
	switch {
	case len(p) == 1:
		counts[0] = n
	case n < 8*uint64(len(p)):
		for range n {
			counts[pick.draw(rs.rng.Float64())]++
		}
	default:
		multinomial(rs.rng, n, p, counts)
	}
	return counts
}

// flushLeaves settles n deferred segments of c's class gi, a class in
// calling contexts: per leaf into c's truth, their stacks left for
// settleStacks.
func (rs *runState) flushLeaves(c *cpuRun, gi int, n uint64) {
	cl := &c.classes[gi]
	sp, pending := cl.split, c.pending[gi]
	for g, k := range rs.drawCounts(n, sp.p, &sp.pick) {
		if k > 0 {
			ty := sp.leaves[g].ty
			ty.stack = -1 // settleStacks keeps the stacks' truth
			rs.commit(c, ty, k*cl.n, k*cl.cycles)
			pending[g] += k
		}
	}
}

// settleStacks draws the stacks of every leaf's pending segments, over
// all processors, into the truth per stack. Called once every processor
// has settled its segments.
func (rs *runState) settleStacks() {
	for _, cs := range rs.classSetList {
		for gi := range cs.classes {
			cl := &cs.classes[gi]
			if cl.split == nil {
				continue
			}
			sp, pending := cl.split, cs.pending[gi]
			for g, m := range pending {
				if m == 0 {
					continue
				}
				pending[g] = 0
				lg := &sp.leaves[g]
				for j, k := range rs.drawCounts(m, lg.p, &lg.pick) {
					if st := lg.stacks[j]; k > 0 && st >= 0 {
						tl := &rs.stackTallies[st]
						tl.instr += k * cl.n
						tl.cycles += k * cl.cycles
					}
				}
			}
		}
	}
}
