package jsonprof

// firstCycle is a node of n whose parent links (parent(i), -1 or out of
// range for a root) lead back to it, or -1 when every node's links end
// at a root. It costs a visit per node, so that a format may walk its
// stacks only MaxStackDepth frames deep and still refuse a cycle of any
// length.
func firstCycle(n int, parent func(i int) int) int {
	state := make([]int8, n) // 0 new, 1 on the current path, 2 ends at a root
	var path []int
	for i := range n {
		path = path[:0]
		j := i
		for j >= 0 && j < n && state[j] == 0 {
			state[j] = 1
			path = append(path, j)
			j = parent(j)
		}
		if j >= 0 && j < n && state[j] == 1 {
			return j
		}
		for _, k := range path {
			state[k] = 2
		}
	}
	return -1
}
