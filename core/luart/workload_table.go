package luart

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/workload"
)

// workloadTable decodes the table form of a workload (m:run's and
// m:images's workload = { ... }): the table becomes plain Go values
// (workloadValue), which the workload package decodes, keys, forms and
// errors included (workload.DecodeTable). The Lua side keeps only what
// Lua has: its processes, threads and kernel callers, which become the
// machine's processes (the minimal form's process = p, a process
// table's proc = p).
func workloadTable(t *lua.LTable, m *machine) (*workload.Spec, error) {
	v, err := workloadValue(t, m, 0)
	if err != nil {
		return nil, err
	}
	tree, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a table with named keys, such as { process = p, functions = { ... } }, not a list")
	}
	return workload.DecodeTable(tree)
}

// workloadValue converts a workload table's value to the plain Go values
// workload.DecodeTable takes: a table with named keys → map[string]any
// (an empty table too), an array → []any, a number → float64, a u64 →
// uint64, a string, a boolean; a process, thread or kernel caller of m →
// its *kernel.Process. Anything else is a workload.FieldError naming the
// value's place.
func workloadValue(lv lua.LValue, m *machine, depth int) (any, error) {
	if depth > luavm.MaxValueDepth {
		return nil, &workload.FieldError{Msg: fmt.Sprintf("tables nested more than %d deep (a table that contains itself?)", luavm.MaxValueDepth)}
	}
	switch v := lv.(type) {
	case lua.LNumber:
		return float64(v), nil
	case lua.LString:
		return string(v), nil
	case lua.LBool:
		return bool(v), nil
	case *lua.LTable:
		return workloadTableValue(v, m, depth)
	}
	if u, ok := luavm.AsU64(lv); ok {
		return u, nil
	}
	if c, ok := toCaller(lv); ok {
		if c.m != m {
			return nil, &workload.FieldError{Msg: "a process of another machine: give one this machine made (m:process{ ... })"}
		}
		return c.proc, nil
	}
	return nil, &workload.FieldError{Msg: fmt.Sprintf("a %s is not a workload value (numbers, strings, booleans, u64 values, tables and this machine's processes are)", luavm.TypeName(lv))}
}

// workloadTableValue converts a table: an array 1…n, or named keys.
func workloadTableValue(t *lua.LTable, m *machine, depth int) (any, error) {
	if n := t.Len(); n > 0 {
		arr := make([]any, n)
		for i := range arr {
			v, err := workloadValue(t.RawGetInt(i+1), m, depth+1)
			if err != nil {
				return nil, under(fmt.Sprintf("[%d]", i+1), err)
			}
			arr[i] = v
		}
		extra := 0
		t.ForEach(func(lua.LValue, lua.LValue) { extra++ })
		if extra != n {
			return nil, &workload.FieldError{Msg: "mixes list elements and named keys"}
		}
		return arr, nil
	}
	out := map[string]any{}
	err := luavm.EachPair(t, func(k, v lua.LValue) error {
		ks, ok := k.(lua.LString)
		if !ok {
			return &workload.FieldError{Msg: fmt.Sprintf("has the key %s, neither a name nor a list index 1…n", k.String())}
		}
		gv, err := workloadValue(v, m, depth+1)
		if err != nil {
			return under(string(ks), err)
		}
		out[string(ks)] = gv
		return nil
	})
	return out, err
}

// under puts err's field under step, a key or an index ("[2]") of the
// table holding it.
func under(step string, err error) error {
	fe, ok := err.(*workload.FieldError)
	if !ok {
		return err
	}
	switch {
	case fe.Field == "":
		fe.Field = step
	case strings.HasPrefix(fe.Field, "["):
		fe.Field = step + fe.Field
	default:
		fe.Field = step + "." + fe.Field
	}
	return fe
}
