package jsonprof

import (
	"fmt"
	"slices"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// V8NativeImage holds the frames of a V8 profile that name no script:
// V8's pseudo-frames "(program)", "(garbage collector)" and "(idle)",
// native functions, and code evaluated without a source URL.
const V8NativeImage = "(native)"

// v8Profile is a V8 CPU profile as the DevTools protocol's
// Profiler.Profile gives it: a .cpuprofile file (node --cpu-prof, Chrome
// DevTools' JavaScript profiler), the CpuProfile event of an old Chrome
// trace, or the Profile and ProfileChunk events of a newer one put
// together. Times are microseconds.
type v8Profile struct {
	Nodes      []v8Node  `json:"nodes"`
	StartTime  *float64  `json:"startTime"`
	EndTime    *float64  `json:"endTime"`
	Samples    []int64   `json:"samples"`
	TimeDeltas []float64 `json:"timeDeltas"`

	// The form of V8's C++ API before Chrome 58 (v8-profiler for Node):
	// the nodes as a tree, times in seconds, absolute timestamps.
	Head       *v8OldNode `json:"head"`
	Timestamps []float64  `json:"timestamps"`
}

// v8Node is a node of the profile's call tree: a function called from
// its parent node.
type v8Node struct {
	ID        *int64      `json:"id"`
	CallFrame v8CallFrame `json:"callFrame"`
	// A .cpuprofile names each node's children, a ProfileChunk each
	// node's parent.
	Parent   *int64  `json:"parent"`
	Children []int64 `json:"children"`
	HitCount int64   `json:"hitCount"`
}

// v8CallFrame is a node's function. Lines and columns are 0-based; -1
// or absent is unknown.
type v8CallFrame struct {
	FunctionName string `json:"functionName"`
	URL          string `json:"url"`
	LineNumber   *int64 `json:"lineNumber"`
	ColumnNumber *int64 `json:"columnNumber"`
}

// v8OldNode is a node of the old tree form.
type v8OldNode struct {
	ID           *int64      `json:"id"`
	FunctionName string      `json:"functionName"`
	URL          string      `json:"url"`
	LineNumber   *int64      `json:"lineNumber"`
	ColumnNumber *int64      `json:"columnNumber"`
	HitCount     int64       `json:"hitCount"`
	Children     []v8OldNode `json:"children"`
}

// modernize turns the old tree form into the flat one: nodes in
// pre-order with their children's ids, times in microseconds, time
// deltas from the timestamps.
func (p *v8Profile) modernize() {
	if p.Head == nil || p.Nodes != nil {
		return
	}
	var visit func(n *v8OldNode)
	visit = func(n *v8OldNode) {
		node := v8Node{ID: n.ID, HitCount: n.HitCount, CallFrame: v8CallFrame{
			FunctionName: n.FunctionName, URL: n.URL, LineNumber: n.LineNumber, ColumnNumber: n.ColumnNumber}}
		for i := range n.Children {
			if id := n.Children[i].ID; id != nil {
				node.Children = append(node.Children, *id)
			}
		}
		p.Nodes = append(p.Nodes, node)
		for i := range n.Children {
			visit(&n.Children[i])
		}
	}
	visit(p.Head)
	seconds := func(t *float64) *float64 {
		if t == nil {
			return nil
		}
		v := *t * 1e6
		return &v
	}
	p.StartTime, p.EndTime = seconds(p.StartTime), seconds(p.EndTime)
	prev := 0.0
	if p.StartTime != nil {
		prev = *p.StartTime
	}
	p.TimeDeltas = make([]float64, len(p.Timestamps))
	for i, ts := range p.Timestamps {
		p.TimeDeltas[i] = ts - prev
		prev = ts
	}
	if p.Timestamps == nil {
		p.TimeDeltas = nil
	}
	p.Head, p.Timestamps = nil, nil
}

// v8Stats are what importing V8 profiles counted, for the notes.
type v8Stats struct {
	samples, idle, zero, root, unsorted int64
	// spanned and gaps give the mean sampling interval.
	spanned float64
	gaps    int64
	// hitCounts counts the profiles weighed by hit counts (no samples).
	hitCounts int
	// extraDelta counts the profiles with one time delta more than
	// samples (node 10.11's), the last left unread.
	extraDelta int
}

// v8Import adds profile p's samples to thread t. A sample weighs the time
// to the next sample (the last one: to the profile's end time, else the
// mean interval), as DevTools' timeline draws it; samples are taken in
// time order (V8 can write a negative time delta: DevTools sorts them
// too). "(root)" is dropped from the stacks; the other pseudo-frames are
// functions of V8NativeImage. where names the profile in errors ("" for
// a whole file).
func v8Import(r *profread.Reading, b *srcBuilder, p *v8Profile, t *srcThread, where string, st *v8Stats) error {
	p.modernize()
	n := len(p.Nodes)
	if n == 0 {
		return r.Errorf("%sthe profile has no nodes: there is nothing to import", where)
	}
	index := make(map[int64]int32, n)
	for i, nd := range p.Nodes {
		if nd.ID == nil {
			return r.Errorf("%snode %d of %d has no id: the profile is damaged", where, i+1, n)
		}
		if j, dup := index[*nd.ID]; dup {
			return r.Errorf("%snodes %d and %d both have id %d: node ids are unique; the profile is damaged", where, j+1, i+1, *nd.ID)
		}
		index[*nd.ID] = int32(i)
	}
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = -1
	}
	setParent := func(child, par int32) error {
		if parent[child] >= 0 && parent[child] != par {
			return r.Errorf("%snode %d has two parents, nodes %d and %d: the profile is damaged", where, *p.Nodes[child].ID, *p.Nodes[parent[child]].ID, *p.Nodes[par].ID)
		}
		parent[child] = par
		return nil
	}
	for i, nd := range p.Nodes {
		if nd.Parent != nil {
			j, ok := index[*nd.Parent]
			if !ok {
				return r.Errorf("%snode %d names parent %d, which no node has: the profile is damaged", where, *nd.ID, *nd.Parent)
			}
			if err := setParent(int32(i), j); err != nil {
				return err
			}
		}
		for _, c := range nd.Children {
			j, ok := index[c]
			if !ok {
				return r.Errorf("%snode %d lists child %d, which no node has: the profile is damaged", where, *nd.ID, c)
			}
			if err := setParent(j, int32(i)); err != nil {
				return err
			}
		}
	}
	if err := v8Acyclic(r, p, parent, where); err != nil {
		return err
	}
	fid := make([]int, n)
	for i, nd := range p.Nodes {
		fid[i] = v8Func(b, nd.CallFrame)
	}
	ws, err := v8Weights(r, p, index, where, st)
	if err != nil {
		return err
	}
	weights, counts := ws.weights, ws.counts
	b.cover(ws.start, ws.end)
	var frames []int
	for _, i := range ws.order {
		if r.Options.DropIdle && srcIdle(v8Name(p.Nodes[i].CallFrame)) {
			st.idle += counts[i]
			continue
		}
		if weights[i] <= 0 {
			continue // samples of no time (counted in v8Weights)
		}
		frames = frames[:0]
		for j := i; j >= 0 && !profmodel.Deeper(len(frames)); j = parent[j] {
			if fid[j] >= 0 {
				frames = append(frames, fid[j])
			}
		}
		if len(frames) == 0 {
			st.root += counts[i]
			continue
		}
		b.add(t, frames, weights[i])
		st.samples += counts[i]
	}
	return nil
}

// v8Acyclic checks that following parents always ends at a root.
func v8Acyclic(r *profread.Reading, p *v8Profile, parent []int32, where string) error {
	if j := firstCycle(len(parent), func(i int) int { return int(parent[i]) }); j >= 0 {
		return r.Errorf("%snode %d is its own ancestor (the parent links form a cycle): the profile is damaged", where, *p.Nodes[j].ID)
	}
	return nil
}

// v8Sampled is a profile's samples summed by node.
type v8Sampled struct {
	// weights are the time of each node's samples (microseconds), counts
	// their number, order the nodes in the order of their first sample.
	weights []float64
	counts  []int64
	order   []int32
	// start and end are the wall time the profile covers: from its start
	// time (else its first sample) to its end time (else its last
	// sample's end).
	start, end float64
}

// v8Weights sums p's samples by node. Without samples, the hit counts
// share the profile's span.
func v8Weights(r *profread.Reading, p *v8Profile, index map[int64]int32, where string, st *v8Stats) (v8Sampled, error) {
	n := len(p.Nodes)
	weights, counts := make([]float64, n), make([]int64, n)
	var order []int32
	fail := func(err error) (v8Sampled, error) { return v8Sampled{}, err }
	if len(p.Samples) == 0 {
		var hits int64
		for i, nd := range p.Nodes {
			if nd.HitCount < 0 {
				return fail(r.Errorf("%snode %d has a negative hitCount (%d): the profile is damaged", where, *nd.ID, nd.HitCount))
			}
			counts[i] = nd.HitCount
			hits += nd.HitCount
		}
		if hits == 0 {
			return fail(r.Errorf("%sthe profile has no samples and no hit counts: there is nothing to import", where))
		}
		if p.StartTime == nil || p.EndTime == nil || *p.EndTime <= *p.StartTime {
			return fail(r.Errorf("%sthe profile has hit counts but no samples and no time span (startTime, endTime) to weigh them: record with samples (node --cpu-prof, DevTools)", where))
		}
		each := (*p.EndTime - *p.StartTime) / float64(hits)
		for i := range p.Nodes {
			weights[i] = float64(counts[i]) * each
			if counts[i] > 0 {
				order = append(order, int32(i))
			}
		}
		st.hitCounts++
		return v8Sampled{weights, counts, order, *p.StartTime, *p.EndTime}, nil
	}
	if len(p.TimeDeltas) == len(p.Samples)+1 {
		// node 10.11 wrote one time delta more than samples; DevTools
		// and speedscope read a delta per sample, the last left over
		p.TimeDeltas = p.TimeDeltas[:len(p.Samples)]
		st.extraDelta++
	}
	if len(p.TimeDeltas) != len(p.Samples) {
		return fail(r.Errorf("%sthe profile has %d samples but %d timeDeltas: each sample has its time delta; the profile is damaged or truncated", where, len(p.Samples), len(p.TimeDeltas)))
	}
	ns := len(p.Samples)
	times := make([]float64, ns)
	at := 0.0
	if p.StartTime != nil {
		at = *p.StartTime
	}
	sorted := true
	for i, d := range p.TimeDeltas {
		at += d
		times[i] = at
		if i > 0 && d < 0 {
			sorted = false
			st.unsorted++
		}
	}
	idx := make([]int32, ns)
	for i := range idx {
		idx[i] = int32(i)
	}
	if !sorted {
		slices.SortStableFunc(idx, func(a, b int32) int {
			switch {
			case times[a] < times[b]:
				return -1
			case times[a] > times[b]:
				return 1
			}
			return 0
		})
	}
	first, last := times[idx[0]], times[idx[ns-1]]
	mean := 0.0
	if ns > 1 {
		mean = (last - first) / float64(ns-1)
		st.spanned += last - first
		st.gaps += int64(ns - 1)
	}
	seen := make([]bool, n)
	for k, i := range idx {
		node, ok := index[p.Samples[i]]
		if !ok {
			return fail(r.Errorf("%ssample %d of %d names node %d, which no node has: the profile is damaged", where, i+1, ns, p.Samples[i]))
		}
		var w float64
		switch {
		case k+1 < ns:
			w = times[idx[k+1]] - times[i]
		case p.EndTime != nil && *p.EndTime > last:
			w = *p.EndTime - last
		case mean > 0:
			w = mean
		default:
			w = 1
		}
		if w <= 0 {
			st.zero++
		}
		weights[node] += w
		counts[node]++
		if !seen[node] {
			seen[node] = true
			order = append(order, node)
		}
		if k+1 == ns {
			last += w // the end of the last sample
		}
	}
	start, end := first, last
	if p.StartTime != nil {
		start = min(first, *p.StartTime)
	}
	if p.EndTime != nil {
		end = max(last, *p.EndTime)
	}
	return v8Sampled{weights, counts, order, start, end}, nil
}

// v8Name is a call frame's function name as DevTools shows it: an
// unnamed function is "(anonymous)".
func v8Name(cf v8CallFrame) string {
	if cf.FunctionName == "" {
		return "(anonymous)"
	}
	return cf.FunctionName
}

// v8Func is the function of a call frame (-1 for "(root)", which is
// dropped): in the image of its script URL, V8NativeImage without one.
func v8Func(b *srcBuilder, cf v8CallFrame) int {
	if cf.FunctionName == "(root)" && cf.URL == "" {
		return -1
	}
	img := cf.URL
	if img == "" {
		b.image("", V8NativeImage)
	} else {
		b.image(img, sourceImageName(img))
	}
	f := srcFunc{img: img, name: v8Name(cf)}
	if cf.LineNumber != nil && *cf.LineNumber >= 0 {
		f.line = int(*cf.LineNumber) + 1
	}
	if cf.ColumnNumber != nil && *cf.ColumnNumber >= 0 {
		f.col = int(*cf.ColumnNumber) + 1
	}
	return b.fn(f)
}

// v8Notes adds the notes of what importing V8 profiles left out, and the
// period: the mean sampling interval.
func v8Notes(m *profmodel.Model, im *profread.Sampling, st *v8Stats) {
	if st.unsorted > 0 {
		m.Note("%d samples had a negative time delta (V8 wrote them out of order); samples are taken in time order", st.unsorted)
	}
	if st.idle > 0 {
		m.Note("%d samples of \"(idle)\" (V8's thread waiting for work) were dropped (--drop-idle)", st.idle)
	}
	if st.zero > 0 {
		m.Note("%d samples were taken at the same time as the next one and carry no time", st.zero)
	}
	if st.root > 0 {
		m.Note("%d samples were of the \"(root)\" node alone and were dropped", st.root)
	}
	if st.extraDelta > 0 {
		m.Note("%d profiles have one timeDeltas entry more than samples (as node 10.11 wrote them): each sample takes its own delta, and the last delta, of no sample, is left out (as Chrome DevTools and speedscope read them)", st.extraDelta)
	}
	if st.hitCounts > 0 {
		m.Note("%d profiles have no samples: their nodes' hit counts share the profile's time span", st.hitCounts)
	}
	if st.gaps > 0 {
		im.Period = float64(int64(float64(st.spanned/float64(st.gaps)*100)+0.5)) / 100
		im.PeriodType, im.PeriodUnit = "wall", "microseconds"
	}
	im.SampleType = "wall/microseconds"
	im.Samples = st.samples
}

// v8Where names a profile of a trace in errors.
func v8Where(pid, tid int64, id string) string {
	return fmt.Sprintf("the profile %s of pid %d, tid %d: ", id, pid, tid)
}
