package workload

// The call structure of a workload is the simplest faithful model of
// stacks: every function names at most one caller (Function.Caller), so
// the functions form trees, and a sample at an address in function f has
// the stack f ← caller(f) ← caller(caller(f)) … up to a root. Calls do
// not change what executes: a function's Weight remains its own (self)
// share of its thread's instructions, and its inclusive share is its own
// plus that of every function below it. A workload that names no caller
// has one-frame stacks, as before.

// checkCallers resolves every function's caller and rejects unknown
// names, kernel/user mixes and cycles.
func checkCallers(c *checker, r *Resolved, n *names) {
	for i := range r.Funcs {
		f := &r.Funcs[i]
		f.Caller = -1
		if f.Function.Caller == "" || f.Inline {
			continue
		}
		k, msg := n.find(f.Function.Caller, r.Funcs)
		switch {
		case k < 0:
			c.add(join(f.field.String(), "caller"), "%s", msg)
		case k == i:
			c.add(join(f.field.String(), "caller"), "function %q cannot call itself (recursion is not modelled)", f.Name)
		case r.Funcs[k].Inline:
			c.add(join(f.field.String(), "caller"), "function %q is inline (it has no code of its own): it can be a caller only as a frame of a stack, inlined into the frame after it", r.Funcs[k].Name)
		default:
			f.Caller = k
		}
	}
	for i := range r.Funcs {
		// a chain longer than the number of functions has a cycle
		n, k := 0, r.Funcs[i].Caller
		for k >= 0 && n <= len(r.Funcs) {
			k = r.Funcs[k].Caller
			n++
		}
		if k >= 0 {
			c.add(join(r.Funcs[i].field.String(), "caller"), "function %q is in a cycle of callers: the call structure must be a tree", r.Funcs[i].Name)
			for j := range r.Funcs {
				r.Funcs[j].Caller = -1 // leave no cycle for Stack to walk
			}
			return
		}
	}
}

// Stack returns the call stack of function f, leaf first: f, its caller,
// its caller's caller, … (indexes into r.Funcs). A function without a
// caller has the one-frame stack [f].
func (r *Resolved) Stack(f int) []int {
	out := []int{f}
	for k := r.Funcs[f].Caller; k >= 0 && len(out) <= len(r.Funcs); k = r.Funcs[k].Caller {
		out = append(out, k)
	}
	return out
}
