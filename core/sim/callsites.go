package sim

// This file is the stack the simulated hardware holds for the kernel
// logger's stack walk (kernel.Interrupt.Callers): the return addresses
// of the calling context an interrupt was taken in, innermost first.
//
// A workload's calling context says which function called which, not
// from where: the lab assigns each call a call site, deterministically.
// The return address of a call from caller C to callee F (the next
// frame inward that has code of its own) is
//
//	C's address + b × (1 + (F's address / b) mod (n − 1))
//
// where b is the workload's instruction bytes and n C's instruction
// slots (C's address when n < 2): an instruction boundary inside C,
// never its first instruction (a return address follows a call), the
// same for every call from C to F. Frames inlined into their caller
// (workload.Stack.Inlined, Function.Inline) have no code of their own:
// the call they make is made from the code they are inlined into, and
// they are not frames of the walk, as on Windows.

// callSites caches the return addresses of a run's calling contexts.
type callSites struct {
	stacks [][]uint64 // per workload stack (nil: not made yet)
	chains [][]uint64 // per function drawn without a stack: its caller chain
}

// callers are the return addresses of the context at executes in: its
// stack's, or its function's caller chain's when it has no stack.
func (rs *runState) callers(at where) []uint64 {
	cs := &rs.callSites
	if at.stack >= 0 {
		if cs.stacks == nil {
			cs.stacks = make([][]uint64, len(rs.w.Stacks))
		}
		if cs.stacks[at.stack] == nil {
			st := &rs.w.Stacks[at.stack]
			phys := make([]int, 0, len(st.Frames))
			for i, f := range st.Frames {
				if !st.IsInlined(i) && !rs.w.Funcs[f].Inline {
					phys = append(phys, f)
				}
			}
			cs.stacks[at.stack] = rs.returnAddresses(phys)
		}
		return cs.stacks[at.stack]
	}
	if cs.chains == nil {
		cs.chains = make([][]uint64, len(rs.w.Funcs))
	}
	if cs.chains[at.fn] == nil {
		var phys []int
		for _, f := range rs.w.Stack(at.fn) {
			if !rs.w.Funcs[f].Inline {
				phys = append(phys, f)
			}
		}
		cs.chains[at.fn] = rs.returnAddresses(phys)
	}
	return cs.chains[at.fn]
}

// returnAddresses are the call sites of a chain of functions with code,
// innermost first: one per caller (never nil, so that it caches).
func (rs *runState) returnAddresses(phys []int) []uint64 {
	out := make([]uint64, 0, max(len(phys)-1, 0))
	for i := 1; i < len(phys); i++ {
		out = append(out, CallSite(rs.fns[phys[i]].addr, rs.fns[phys[i]].n, rs.fns[phys[i-1]].addr, rs.fns[phys[i]].ib))
	}
	return out
}

// CallSite is the return address of a call from the caller at address
// caller, of slots instruction slots of ib bytes, to the callee at
// address callee (see the formula above).
func CallSite(caller, slots, callee, ib uint64) uint64 {
	if slots < 2 || ib == 0 {
		return caller
	}
	return caller + ib*(1+(callee/ib)%(slots-1))
}
