package luart

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/sim"
)

// addCallStructure adds the workload's call structure to m:run's truth
// rows: caller (the function's caller's name, when it has one) and
// inclusive = { instructions, cycles } (its own plus every function below
// it in the call tree; its own alone without callers). res.Functions is
// in the order of res.Workload.Funcs.
func addCallStructure(L *lua.LState, truth *lua.LTable, res *sim.Result) {
	w := res.Workload
	if w == nil || len(w.Funcs) != len(res.Functions) {
		return
	}
	instr := make([]uint64, len(w.Funcs))
	cycles := make([]uint64, len(w.Funcs))
	for i, ft := range res.Functions {
		for _, a := range w.Stack(i) {
			instr[a] += ft.Instructions
			cycles[a] += ft.Cycles
		}
	}
	for i, ft := range res.Functions {
		row, ok := truth.RawGetString(ft.Name).(*lua.LTable)
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
