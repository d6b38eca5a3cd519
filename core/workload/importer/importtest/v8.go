package importtest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// V8CPUProfile is a .cpuprofile as `node --cpu-prof` writes it, of any
// size: nodes call-tree nodes (a random tree under "(root)", with
// "(program)", "(garbage collector)" and "(idle)" among its children)
// of functions in 50 scripts, many of them unnamed, and samples samples
// at about 1 ms intervals, drawn from a heavy-tailed law. The same
// arguments give the same bytes.
func V8CPUProfile(nodes, samples int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x58))
	nodes = max(nodes, 5)
	children := make([][]int, nodes+1) // by id, 1-based
	var b strings.Builder
	b.WriteString(`{"nodes":[`)
	parent := make([]int, nodes+1)
	for id := 2; id <= nodes; id++ {
		p := 1 // the pseudo-frames and the main script's node under the root
		if id > 5 {
			p = 5 + rng.IntN(id-5) // anything under the main script
		}
		parent[id] = p
		children[p] = append(children[p], id)
	}
	for id := 1; id <= nodes; id++ {
		if id > 1 {
			b.WriteByte(',')
		}
		var cf string
		switch id {
		case 1:
			cf = `"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1`
		case 2:
			cf = `"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1`
		case 3:
			cf = `"functionName":"(garbage collector)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1`
		case 4:
			cf = `"functionName":"(idle)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1`
		default:
			fn := id % 997 // functions repeat across the tree, as calls from several places do
			name := fmt.Sprintf("fn%d", fn)
			if fn%5 == 0 {
				name = ""
			}
			script := fn % 50
			cf = fmt.Sprintf(`"functionName":%q,"scriptId":"%d","url":"file:///srv/app/src/mod%d.js","lineNumber":%d,"columnNumber":%d`,
				name, 100+script, script, fn*3, fn%40)
		}
		fmt.Fprintf(&b, `{"id":%d,"callFrame":{%s},"hitCount":0`, id, cf)
		if len(children[id]) > 0 {
			b.WriteString(`,"children":[`)
			for i, c := range children[id] {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(c))
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
	}
	start := 1_000_000
	b.WriteString(`],"startTime":` + strconv.Itoa(start))
	var sb, db strings.Builder
	at := start
	for i := range samples {
		if i > 0 {
			sb.WriteByte(',')
			db.WriteByte(',')
		}
		node := 2 + heavy(rng, nodes-1)
		sb.WriteString(strconv.Itoa(node))
		d := 900 + rng.IntN(300)
		at += d
		db.WriteString(strconv.Itoa(d))
	}
	fmt.Fprintf(&b, `,"endTime":%d,"samples":[%s],"timeDeltas":[%s]}`, at+1000, sb.String(), db.String())
	return []byte(b.String())
}

// V8DeepChain is a .cpuprofile whose n nodes form one chain (each node
// the parent of the next, functions f0 … f(n-1) of a.js) with a sample
// on each: n stacks of 1 … n frames, the tree-shaped profile of issue 36
// (16,000 nodes, 2.6 MB, made 3.7 GB of stacks before they were cut and
// counted).
func V8DeepChain(n int) []byte {
	nodes, samples, deltas := make([]string, n), make([]string, n), make([]string, n)
	for i := range n {
		parent := ""
		if i > 0 {
			parent = fmt.Sprintf(`,"parent":%d`, i)
		}
		nodes[i] = fmt.Sprintf(`{"id":%d,"callFrame":{"functionName":"f%d","url":"a.js"}%s}`, i+1, i, parent)
		samples[i], deltas[i] = strconv.Itoa(i+1), "100"
	}
	return fmt.Appendf(nil, `{"nodes":[%s],"samples":[%s],"timeDeltas":[%s],"startTime":0,"endTime":%d}`,
		strings.Join(nodes, ","), strings.Join(samples, ","), strings.Join(deltas, ","), 100*n+100)
}
