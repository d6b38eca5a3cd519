package profmodel

// MaxStackDepth is the most frames a stack of a tree-shaped profile
// keeps: the innermost 256 (perf's call chains stop at 127 frames by
// default). Such a profile (a V8 .cpuprofile's call tree, a Chrome
// trace's ProfileChunk parents and stackFrames, a Firefox profile's
// stackTable prefixes, speedscope's evented opens, a trace's nested
// duration events) makes a stack of every node's path to its root: a
// chain of N nodes with a sample on each is N stacks of up to N frames,
// N² in all (16,000 nodes in a 2.6 MB file made 3.7 GB). With the bound
// they are at most MaxStackDepth frames per stack, which every such
// format shares: its walk from a leaf toward the root stops once it has
// MaxStackDepth+1 frames ([Deeper] says when), and [Model.Cut] keeps
// the innermost MaxStackDepth, counted for a warning. Formats whose
// file holds every frame of every stack (perf, pprof, folded stacks)
// are not cut: their frames cost the file's bytes.
const MaxStackDepth = 256

// Deeper says whether a stack of n frames is deeper than MaxStackDepth:
// a walk toward the root may stop there, and Cut cuts it.
func Deeper(n int) bool { return n > MaxStackDepth }

// Cut is how many of a stack's n frames (leaf first) to keep: all of
// them, or when Deeper(n) the innermost MaxStackDepth, or a few more to
// end at a frame not inlined into the next (inlined says whether frame i
// is); a cut is counted for the import's warning.
func (m *Model) Cut(n int, inlined func(i int) bool) int {
	if !Deeper(n) {
		return n
	}
	m.deep++
	keep := MaxStackDepth
	for keep < n && inlined(keep-1) {
		keep++
	}
	return keep
}

// deepWarning warns of the stacks cut, when any was.
func (m *Model) deepWarning() {
	if m.deep == 0 {
		return
	}
	m.Warn("%d stacks were deeper than %d frames and keep their innermost %d: the frames toward their roots are dropped, and the functions there get less of their time than the source gives them (a tree this deep is a runaway recursion, a generated one, or a damaged file)", m.deep, MaxStackDepth, MaxStackDepth)
}
