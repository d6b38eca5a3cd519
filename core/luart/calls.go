package luart

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/sim"
)

// addCallStructure adds the workload's calling contexts to m:run's truth
// rows: caller (the function's caller's name, when it has one) and
// inclusive = { instructions, cycles }: its own execution plus that of
// every function it is a caller of, through the workload's stacks (each
// stack counted once for each distinct function on it) and through the
// caller chains of functions drawn without a stack. res.Functions is in
// the order of res.Workload.Funcs.
func addCallStructure(L *lua.LState, truth *lua.LTable, res *sim.Result) {
	w := res.Workload
	if w == nil || len(w.Funcs) != len(res.Functions) {
		return
	}
	instr := make([]uint64, len(w.Funcs))
	cycles := make([]uint64, len(w.Funcs))
	// what each function executed outside any stack: its caller chain
	ownInstr := make([]uint64, len(w.Funcs))
	ownCycles := make([]uint64, len(w.Funcs))
	for i, ft := range res.Functions {
		ownInstr[i], ownCycles[i] = ft.Instructions, ft.Cycles
	}
	for si, st := range res.Stacks {
		frames := w.Stacks[si].Frames
		ownInstr[frames[0]] -= min(ownInstr[frames[0]], st.Instructions)
		ownCycles[frames[0]] -= min(ownCycles[frames[0]], st.Cycles)
		seen := map[int]bool{}
		for _, f := range frames {
			if !seen[f] {
				seen[f] = true
				instr[f] += st.Instructions
				cycles[f] += st.Cycles
			}
		}
	}
	for i := range res.Functions {
		for _, a := range w.Stack(i) {
			instr[a] += ownInstr[i]
			cycles[a] += ownCycles[i]
		}
	}
	for i := range res.Functions {
		row, ok := truth.RawGetString(truthKey(res, i)).(*lua.LTable)
		if !ok {
			continue
		}
		if c := w.Funcs[i].Caller; c >= 0 {
			row.RawSetString("caller", lua.LString(w.Funcs[c].Name))
		}
		inc := L.CreateTable(0, 2)
		inc.RawSetString("instructions", ResultValue(L, instr[i]))
		inc.RawSetString("cycles", ResultValue(L, cycles[i]))
		row.RawSetString("inclusive", inc)
	}
}

// truthKey is the key of function i's row in m:run's truth: its name,
// or "image!name" where several images define the name.
func truthKey(res *sim.Result, i int) string {
	if w := res.Workload; w != nil && len(w.Funcs) == len(res.Functions) {
		return w.Ref(i)
	}
	return res.Functions[i].Name
}

// stacksTable is m:run's stacks: one row per calling context of the
// workload, { frames = { leaf, caller, … }, instructions, cycles, hits =
// { [source] = n } }, in the workload's order.
func stacksTable(L *lua.LState, res *sim.Result) *lua.LTable {
	hits := make([]map[string]uint64, len(res.Stacks))
	for k, n := range res.StackHits {
		if hits[k.Stack] == nil {
			hits[k.Stack] = map[string]uint64{}
		}
		hits[k.Stack][k.Source.Name()] += n
	}
	out := L.CreateTable(len(res.Stacks), 0)
	for i, st := range res.Stacks {
		row := L.CreateTable(0, 4)
		frames := L.CreateTable(len(st.Frames), 0)
		for _, f := range st.Frames {
			frames.Append(lua.LString(f))
		}
		row.RawSetString("frames", frames)
		row.RawSetString("instructions", ResultValue(L, st.Instructions))
		row.RawSetString("cycles", ResultValue(L, st.Cycles))
		row.RawSetString("hits", countsTable(L, hits[i]))
		out.Append(row)
	}
	return out
}
