package calltree

import (
	"cmp"
	"container/heap"
	"slices"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// A profiler that counts (callgrind) records a call graph, not stacks:
// each function's self cost and, per caller → callee edge, the inclusive
// cost of the calls. A workload needs weighted calling contexts, so they
// are reconstructed as gprof's call graph assumes: the cost a function
// incurs is spread over its callers in proportion to the inclusive cost
// of their calls to it, and so on up the graph.
//
// From a function f on a context, the context continues to caller c
// with probability in(c→f) / max(incl(f), in(f)), where incl(f) is f's
// self cost plus the inclusive cost of its calls (to other functions)
// and in(f) the inclusive cost of the calls to it (from other
// functions); it ends at f with the rest, (incl(f) − in(f)) / incl(f)
// when positive: the cost spent in f that no recorded call explains (a
// thread's entry point, a function reached without a call). A function
// appears at most once per context (recursion is folded, and callers
// already on the context are left out, the others rescaled). The result
// is exact when every function has one caller; otherwise it mixes the
// contexts of a function called from several places as gprof does.
//
// Contexts are expanded most probable first, up to these bounds; a
// context that reaches one ends at its last caller:
const (
	// MaxContextDepth is the deepest reconstructed context.
	MaxContextDepth = 64
	// MinContextShare is the smallest share of a function's self cost a
	// context is expanded further for.
	MinContextShare = 1e-2
	// MaxContextExpansions bounds the contexts expanded per function.
	MaxContextExpansions = 16
)

// callGraph is one thread's call graph with costs.
type callGraph struct {
	nodes []*cgNode
	byFn  map[*profmodel.Func]*cgNode
}

// cgNode is a function of a call graph.
type cgNode struct {
	id   int
	f    *profmodel.Func
	self float64
	// selfAt is the self cost by address (only addresses known).
	selfAt map[uint64]float64
	// in is the inclusive cost of the calls from each caller (other than
	// itself); out the inclusive cost of the calls it makes to others.
	in  map[*cgNode]float64
	out float64
}

func newCallGraph() *callGraph { return &callGraph{byFn: map[*profmodel.Func]*cgNode{}} }

// node is f's node, made the first time.
func (g *callGraph) node(f *profmodel.Func) *cgNode {
	n := g.byFn[f]
	if n == nil {
		n = &cgNode{id: len(g.nodes), f: f, in: map[*cgNode]float64{}}
		g.byFn[f] = n
		g.nodes = append(g.nodes, n)
	}
	return n
}

// self adds cost to f's self cost (at addr, when hasAddr).
func (g *callGraph) self(f *profmodel.Func, cost float64, addr uint64, hasAddr bool) {
	n := g.node(f)
	n.self += cost
	if hasAddr && cost > 0 {
		if n.selfAt == nil {
			n.selfAt = map[uint64]float64{}
		}
		n.selfAt[addr] += cost
	}
}

// call adds a call from caller to callee of inclusive cost.
func (g *callGraph) call(caller, callee *profmodel.Func, cost float64) {
	if caller == callee {
		return // recursion: its cost is the function's already
	}
	from, to := g.node(caller), g.node(callee)
	to.in[from] += cost
	from.out += cost
}

// addContexts adds every function's self cost, spread over its
// reconstructed contexts, to thread key of p; it returns the cost added.
func (g *callGraph) addContexts(m *profmodel.Model, p *profmodel.Process, key string) float64 {
	var total float64
	var t *profmodel.Thread
	var frames []profmodel.Frame
	for _, n := range g.nodes {
		if n.self <= 0 {
			continue
		}
		if t == nil {
			t = p.Thread(key)
		}
		g.contexts(n, func(path []*cgNode, share float64) {
			frames = frames[:0]
			for _, c := range path {
				frames = append(frames, profmodel.Frame{Func: c.f})
			}
			m.Add(t, frames, n.self*share)
		})
		for a, c := range n.selfAt {
			n.f.AddCodeAt(a, c)
		}
		total += n.self
	}
	return total
}

// callers is the distribution of the next frame above path's top: each
// caller not on path with its probability, and the probability that the
// context ends there.
func (n *cgNode) callers(onPath func(*cgNode) bool) (next []*cgNode, p []float64, end float64) {
	all := make([]*cgNode, 0, len(n.in))
	for c := range n.in {
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b *cgNode) int { return cmp.Compare(a.id, b.id) }) // sums in one order
	var in float64
	for _, c := range all {
		in += n.in[c]
		if !onPath(c) && n.in[c] > 0 {
			next = append(next, c)
		}
	}
	incl := n.self + n.out
	den := max(incl, in)
	if den <= 0 {
		return nil, nil, 1
	}
	end = max(0, incl-in) / den
	// Callers already on the context are left out; the rest is rescaled.
	var kept float64
	for _, c := range next {
		kept += n.in[c]
	}
	kept /= den
	if kept+end <= 0 {
		return nil, nil, 1
	}
	slices.SortFunc(next, func(a, b *cgNode) int {
		if c := cmp.Compare(n.in[b], n.in[a]); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	p = make([]float64, len(next))
	for i, c := range next {
		p[i] = n.in[c] / den / (kept + end)
	}
	return next, p, end / (kept + end)
}

// contexts calls emit with leaf's contexts (leaf first) and their shares
// of its self cost (adding up to 1).
func (g *callGraph) contexts(leaf *cgNode, emit func(path []*cgNode, share float64)) {
	q := &contextQueue{}
	heap.Push(q, &partialContext{path: []*cgNode{leaf}, share: 1})
	for expansions := 0; q.Len() > 0; {
		c := heap.Pop(q).(*partialContext)
		if len(c.path) >= MaxContextDepth || c.share < MinContextShare || expansions >= MaxContextExpansions {
			emit(c.path, c.share)
			continue
		}
		top := c.path[len(c.path)-1]
		next, p, end := top.callers(func(x *cgNode) bool { return slices.Contains(c.path, x) })
		if len(next) == 0 {
			emit(c.path, c.share)
			continue
		}
		expansions++
		if end > 0 {
			emit(c.path, c.share*end)
		}
		for i, caller := range next {
			path := append(slices.Clip(c.path), caller)
			q.seq++
			heap.Push(q, &partialContext{path: path, share: c.share * p[i], seq: q.seq})
		}
	}
}

// partialContext is a context being expanded.
type partialContext struct {
	path  []*cgNode
	share float64
	seq   int
}

// contextQueue orders partial contexts by share, largest first (ties in
// order of making: deterministic).
type contextQueue struct {
	items []*partialContext
	seq   int
}

func (q *contextQueue) Len() int { return len(q.items) }
func (q *contextQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.share != b.share {
		return a.share > b.share
	}
	return a.seq < b.seq
}
func (q *contextQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *contextQueue) Push(x any)    { q.items = append(q.items, x.(*partialContext)) }
func (q *contextQueue) Pop() any {
	x := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return x
}
