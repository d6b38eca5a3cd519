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
func addCallStructure(L *lua.LState, rows []*lua.LTable, res *sim.Result) {
	w := res.Workload
	if w == nil || len(w.Funcs) != len(res.Functions) || len(rows) != len(res.Functions) {
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
	// seen[f] == si+1: f is already counted for stack si (a function may
	// appear twice on one stack)
	seen := make([]int, len(w.Funcs))
	for si, st := range res.Stacks {
		frames := w.Stacks[si].Frames
		ownInstr[frames[0]] -= min(ownInstr[frames[0]], st.Instructions)
		ownCycles[frames[0]] -= min(ownCycles[frames[0]], st.Cycles)
		for _, f := range frames {
			if seen[f] != si+1 {
				seen[f] = si + 1
				instr[f] += st.Instructions
				cycles[f] += st.Cycles
			}
		}
	}
	for i := range res.Functions {
		if ownInstr[i] == 0 && ownCycles[i] == 0 {
			continue
		}
		// i and its caller chain (Resolved.Stack, without its slice)
		for a, n := i, 0; a >= 0 && n <= len(w.Funcs); a, n = w.Funcs[a].Caller, n+1 {
			instr[a] += ownInstr[i]
			cycles[a] += ownCycles[i]
		}
	}
	for i, row := range rows {
		if row == nil {
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
// workload, { frames = { leaf, caller, … }, inlined = { positions of
// the frames inlined into the next } (when some are), instructions,
// cycles, hits = { [source] = n } }, in the workload's order.
func stacksTable(L *lua.LState, res *sim.Result) *lua.LTable {
	hits := make([]map[string]uint64, len(res.Stacks))
	for k, n := range res.StackHits {
		if hits[k.Stack] == nil {
			hits[k.Stack] = map[string]uint64{}
		}
		hits[k.Stack][k.Source.Name()] += n
	}
	// a frame's Lua string, made once per function (a workload has tens
	// of thousands of stacks over a few thousand functions)
	w := res.Workload
	var names []lua.LValue
	if w != nil && len(w.Stacks) == len(res.Stacks) {
		names = make([]lua.LValue, len(w.Funcs))
	}
	out := L.CreateTable(len(res.Stacks), 0)
	for i, st := range res.Stacks {
		row := L.CreateTable(0, 4)
		frames := L.CreateTable(len(st.Frames), 0)
		for j, f := range st.Frames {
			if names == nil || len(w.Stacks[i].Frames) != len(st.Frames) {
				frames.Append(lua.LString(f))
				continue
			}
			k := w.Stacks[i].Frames[j]
			if names[k] == nil {
				names[k] = lua.LString(f)
			}
			frames.Append(names[k])
		}
		row.RawSetString("frames", frames)
		if len(st.Inlined) > 0 {
			inl := L.CreateTable(0, 0)
			for j, in := range st.Inlined {
				if in {
					inl.Append(lua.LNumber(j + 1))
				}
			}
			row.RawSetString("inlined", inl)
		}
		row.RawSetString("instructions", ResultValue(L, st.Instructions))
		row.RawSetString("cycles", ResultValue(L, st.Cycles))
		row.RawSetString("hits", countsTable(L, hits[i]))
		out.Append(row)
	}
	return out
}
