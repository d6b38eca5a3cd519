package luart

import (
	"sort"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/sim"
)

// runResultTable is m:run's result. Its truth and stacks, which grow
// with the workload (tens of thousands of stacks in an imported profile),
// are built when the scenario first reads them (luavm.SetLazy): a run
// pays for what its scenario reads, and sees the same values.
func (rt *Runtime) runResultTable(L *lua.LState, res *sim.Result) *lua.LTable {
	out := L.CreateTable(0, 8)
	out.RawSetString("interrupts", countsTable(L, res.Interrupts))
	byCPU := L.CreateTable(0, len(res.InterruptsByCPU))
	for cpu, counts := range res.InterruptsByCPU {
		byCPU.RawSetInt(cpu, countsTable(L, counts))
	}
	out.RawSetString("interrupts_by_cpu", byCPU)
	// built when read, walked by pairs where they were always set
	lazy := map[string]func() lua.LValue{"truth": func() lua.LValue { return truthTable(L, res) }}
	luavm.Reserve(out, "truth")
	if res.NumStacks() > 0 {
		lazy["stacks"] = func() lua.LValue { return stacksTable(L, res) }
		luavm.Reserve(out, "stacks")
	}
	intervals := L.CreateTable(0, len(res.Intervals))
	for _, src := range sortedKeys(res.Intervals) {
		vs := res.Intervals[src]
		if len(vs) == 1 {
			intervals.RawSetString(src, luavm.ResultValue(L, vs[0]))
			continue
		}
		list := L.CreateTable(len(vs), 0)
		for _, v := range vs {
			list.Append(luavm.ResultValue(L, v))
		}
		intervals.RawSetString(src, list)
	}
	out.RawSetString("intervals", intervals)
	out.RawSetString("start", luavm.ResultValue(L, res.Start))
	out.RawSetString("end", luavm.ResultValue(L, res.End))
	if res.BugCheck != nil {
		out.RawSetString("bugcheck", bugCheckTable(L, res.BugCheck))
	}
	logT := L.CreateTable(len(res.Log), 0)
	for _, line := range res.Log {
		logT.Append(lua.LString(line))
	}
	out.RawSetString("log", logT)
	rt.SetLazy(out, lazy)
	return out
}

// truthTable is m:run's truth: function name → { instructions, cycles,
// image, base, size, events, code, caller, inclusive }.
func truthTable(L *lua.LState, res *sim.Result) *lua.LTable {
	truth := L.CreateTable(0, len(res.Functions))
	rows := make([]*lua.LTable, len(res.Functions))
	var evKeys []string // the events' names, sorted once (every function has the same)
	for i, ft := range res.Functions {
		row := L.CreateTable(0, 7)
		row.RawSetString("instructions", luavm.ResultValue(L, ft.Instructions))
		row.RawSetString("cycles", luavm.ResultValue(L, ft.Cycles))
		row.RawSetString("image", lua.LString(ft.Image))
		row.RawSetString("base", luavm.ResultValue(L, ft.Addr))
		row.RawSetString("size", luavm.ResultValue(L, ft.Size))
		events := L.CreateTable(0, len(ft.Events))
		if !sameKeys(evKeys, ft.Events) {
			evKeys = sortedKeys(ft.Events)
		}
		for _, k := range evKeys {
			events.RawSetString(k, lua.LNumber(ft.Events[k]))
		}
		row.RawSetString("events", events)
		row.RawSetString("code", codeTable(L, ft, events, evKeys))
		truth.RawSetString(truthKey(res, i), row)
		rows[i] = row
	}
	addCallStructure(L, rows, res)
	return truth
}

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
	for si, st := range res.Stacks() {
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
		inc.RawSetString("instructions", luavm.ResultValue(L, instr[i]))
		inc.RawSetString("cycles", luavm.ResultValue(L, cycles[i]))
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
	truths := res.Stacks()
	hits := make([]map[string]uint64, len(truths))
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
	if w != nil && len(w.Stacks) == len(truths) {
		names = make([]lua.LValue, len(w.Funcs))
	}
	out := L.CreateTable(len(truths), 0)
	for i, st := range truths {
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
		row.RawSetString("instructions", luavm.ResultValue(L, st.Instructions))
		row.RawSetString("cycles", luavm.ResultValue(L, st.Cycles))
		row.RawSetString("hits", countsTable(L, hits[i]))
		out.Append(row)
	}
	return out
}

// sameKeys reports whether keys are exactly m's keys.
func sameKeys(keys []string, m map[string]float64) bool {
	if keys == nil || len(keys) != len(m) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// countsTable is source name → count.
func countsTable(L *lua.LState, m map[string]uint64) *lua.LTable {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t := L.CreateTable(0, len(keys))
	for _, k := range keys {
		t.RawSetString(k, luavm.ResultValue(L, m[k]))
	}
	return t
}

// codeTable is a truth row's code = { instructions, cycles, events }:
// what executed at the function's addresses (sim.FunctionTruth.Code);
// events is the row's own events table when they are the same.
func codeTable(L *lua.LState, ft sim.FunctionTruth, events *lua.LTable, evKeys []string) *lua.LTable {
	c := L.CreateTable(0, 3)
	c.RawSetString("instructions", luavm.ResultValue(L, ft.Code.Instructions))
	c.RawSetString("cycles", luavm.ResultValue(L, ft.Code.Cycles))
	if ft.Code.Instructions == ft.Instructions && ft.Code.Cycles == ft.Cycles {
		c.RawSetString("events", events)
		return c
	}
	ev := L.CreateTable(0, len(ft.Code.Events))
	for _, k := range evKeys {
		ev.RawSetString(k, lua.LNumber(ft.Code.Events[k]))
	}
	c.RawSetString("events", ev)
	return c
}
