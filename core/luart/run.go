package luart

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/kernel"
)

// maxRunUS is the longest m:run, an hour of simulated time (the engine's
// own limit).
const maxRunUS = 3600e6

// machineRun is m:run{ duration_us = n, workload = PATH_OR_TABLE }: runs
// the workload on the simulated processors for that much more simulated
// time, the HALs' programmed hardware raising profile interrupts. It
// returns { interrupts, interrupts_by_cpu, truth, start, end, bugcheck,
// log }.
func (rt *Runtime) machineRun(L *lua.LState) int {
	const fn = "m:run"
	m := checkMachine(L, fn)
	f := CheckFields(L, fn, L.Get(2), "duration_us", "workload")
	if !f.Has("duration_us") {
		f.Errorf("duration_us", "is required: the simulated time to run, in microseconds (m:run{ duration_us = 100000, workload = ... })")
	}
	dur := f.Uint("duration_us", 0, 0, maxRunUS)
	if !f.Has("workload") {
		f.Errorf("workload", "is required: a workload file's path or a table { process = p, functions = { ... } }")
	}
	spec, minimal := rt.workloadSpec(L, f, m)
	checkWorkloadFits(f, spec, m)
	rt.mustRun(L, m, fn)
	if minimal {
		if err := checkMinimal(spec, sim.Target(m.km.Arch())); err != nil {
			L.RaiseError("%s: %v", fn, err)
		}
	}
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := m.sim.RunContext(ctx, dur, spec)
	if minimal {
		err = minimalError(err)
	}
	if err != nil {
		rt.raiseRunError(L, m, fn, ctx, err)
	}
	L.Push(runResultTable(L, res))
	return 1
}

// raiseRunError raises m:run's failure as the kind of error it is: a HAL
// failure or a plugin's death (exit status 3), the simulator's own "proflab
// bug" (exit status 4), a stopped machine, or the scenario's error.
func (rt *Runtime) raiseRunError(L *lua.LState, m *machine, fn string, ctx context.Context, err error) {
	var he *kernel.HALError
	var d *pluginDeath
	switch {
	case errors.As(err, &he):
		rt.raisePlugin(L, fmt.Errorf("%s: %w", fn, err))
	case ctx.Err() != nil && errors.As(context.Cause(ctx), &d):
		rt.raisePlugin(L, fmt.Errorf("%s: %w", fn, d.err))
	case ctx.Err() != nil:
		L.RaiseError("%s: %v", fn, ctx.Err())
	case errors.Is(err, kernel.ErrHalted):
		rt.mustRun(L, m, fn)
	case strings.HasPrefix(err.Error(), "proflab bug"):
		// The simulator's own consistency checks: a bug in proflab (exit
		// status 4), even if the script catches the error.
		rt.bugs = append(rt.bugs, &runerr.Error{Kind: runerr.KindBug, Message: fmt.Sprintf("%s: %s: %v", rt.callerWhere(L), fn, err)})
	}
	L.RaiseError("%s: %v", fn, err)
}

// workloadSpec reads the workload field: a path (resolved from the
// scenario's folder) or a table; minimal reports lua-api.md's minimal
// table form.
func (rt *Runtime) workloadSpec(L *lua.LState, f *Fields, m *machine) (spec *workload.Spec, minimal bool) {
	switch v := f.Get("workload").(type) {
	case lua.LString:
		// a workload TOML, or a profile imported as it is read
		path := rt.Resolve(string(v))
		ld, err := rt.cfg.Workloads.Load(path, m.km.Arch().String())
		if err != nil {
			f.Errorf("workload", "%v", err)
		}
		rt.noteInputSum(path, ld.SHA256)
		rt.warnImport(string(v), ld)
		return ld.Spec, false
	case *lua.LTable:
		gv, err := workloadValue(v, m, 0)
		if err != nil {
			f.Errorf("workload", "%v", err)
		}
		t, ok := gv.(map[string]any)
		if !ok {
			f.Errorf("workload", "expected a table with named fields, such as { process = p, functions = { ... } }")
		}
		spec, minimal, err := workloadFromTable(t)
		if err != nil {
			f.Errorf("workload", "%v", err)
		}
		return spec, minimal
	default:
		f.Errorf("workload", "expected a workload file's path or a table, got %s", typeName(v))
	}
	return nil, false
}

// warnImport writes to the run log, once per file and content, the
// warnings of a profile imported as it was read: a source that does not
// say where the program ran (a memory profile, cache-miss samples) must
// not pass for one.
func (rt *Runtime) warnImport(name string, ld importer.Loaded) {
	if ld.Imported == nil || len(ld.Imported.Warnings) == 0 || rt.warned[ld.SHA256] {
		return
	}
	if rt.warned == nil {
		rt.warned = map[string]bool{}
	}
	rt.warned[ld.SHA256] = true
	for _, w := range ld.Imported.Warnings {
		rt.logLine(fmt.Sprintf("proflab: warning: workload %s: %s", name, w))
	}
}

// checkWorkloadFits refuses what a workload asks of the machine that the
// machine lacks: a process named but never made (m:process{ name = ... }),
// a thread's cpu beyond the machine's processors.
func checkWorkloadFits(f *Fields, spec *workload.Spec, m *machine) {
	n := m.km.CPUCount()
	for i, p := range spec.Processes {
		if p.Proc == nil && !spec.CreateProcesses {
			found := false
			for _, q := range m.km.Processes() {
				if q.Name() == p.Name {
					found = true
					break
				}
			}
			if !found {
				f.Errorf("workload", "processes[%d].name: no process named %q on this machine; make it first with m:process{ name = %q }", i+1, p.Name, p.Name)
			}
		}
		for j, t := range p.Threads {
			if t.CPU >= n {
				f.Errorf("workload", "processes[%d].thread[%d].cpu: %d, but the machine has %d processor%s (0…%d)", i+1, j+1, t.CPU, n, plural(n), n-1)
			}
		}
	}
}

// workloadValue converts a workload table to the plain Go values
// workloadFromTable takes: tables with named fields → map[string]any
// (also an empty table), arrays → []any, numbers → float64, u64 → uint64,
// processes (p, or a thread's or kernel caller's process) → *kernel.Process.
func workloadValue(lv lua.LValue, m *machine, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, fmt.Errorf("tables nested more than %d deep", maxValueDepth)
	}
	if c, ok := toCaller(lv); ok {
		if c.m != m {
			return nil, fmt.Errorf("a process of another machine")
		}
		return c.proc, nil
	}
	t, ok := lv.(*lua.LTable)
	if !ok {
		return toGo(lv, depth)
	}
	n := t.Len()
	if n > 0 {
		arr := make([]any, n)
		for i := 1; i <= n; i++ {
			v, err := workloadValue(t.RawGetInt(i), m, depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			arr[i-1] = v
		}
		extra := 0
		t.ForEach(func(lua.LValue, lua.LValue) { extra++ })
		if extra != n {
			return nil, fmt.Errorf("a table mixes array elements and named fields")
		}
		return arr, nil
	}
	out := map[string]any{}
	var err error
	t.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		ks, ok := k.(lua.LString)
		if !ok {
			err = fmt.Errorf("unexpected key %s (use names, or an array 1..n)", lua.LVAsString(k))
			return
		}
		var gv any
		if gv, err = workloadValue(v, m, depth+1); err != nil {
			err = fmt.Errorf("%s: %w", string(ks), err)
			return
		}
		out[string(ks)] = gv
	})
	return out, err
}

// runResultTable is m:run's result.
func runResultTable(L *lua.LState, res *sim.Result) *lua.LTable {
	out := L.CreateTable(0, 8)
	out.RawSetString("interrupts", countsTable(L, res.Interrupts))
	byCPU := L.CreateTable(0, len(res.InterruptsByCPU))
	for cpu, counts := range res.InterruptsByCPU {
		byCPU.RawSetInt(cpu, countsTable(L, counts))
	}
	out.RawSetString("interrupts_by_cpu", byCPU)
	truth := L.CreateTable(0, len(res.Functions))
	rows := make([]*lua.LTable, len(res.Functions))
	var evKeys []string // the events' names, sorted once (every function has the same)
	for i, ft := range res.Functions {
		row := L.CreateTable(0, 7)
		row.RawSetString("instructions", ResultValue(L, ft.Instructions))
		row.RawSetString("cycles", ResultValue(L, ft.Cycles))
		row.RawSetString("image", lua.LString(ft.Image))
		row.RawSetString("base", ResultValue(L, ft.Addr))
		row.RawSetString("size", ResultValue(L, ft.Size))
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
	out.RawSetString("truth", truth)
	if len(res.Stacks) > 0 {
		out.RawSetString("stacks", stacksTable(L, res))
	}
	intervals := L.CreateTable(0, len(res.Intervals))
	for _, src := range sortedKeys(res.Intervals) {
		vs := res.Intervals[src]
		if len(vs) == 1 {
			intervals.RawSetString(src, ResultValue(L, vs[0]))
			continue
		}
		list := L.CreateTable(len(vs), 0)
		for _, v := range vs {
			list.Append(ResultValue(L, v))
		}
		intervals.RawSetString(src, list)
	}
	out.RawSetString("intervals", intervals)
	out.RawSetString("start", ResultValue(L, res.Start))
	out.RawSetString("end", ResultValue(L, res.End))
	if res.BugCheck != nil {
		out.RawSetString("bugcheck", bugCheckTable(L, res.BugCheck))
	}
	logT := L.CreateTable(len(res.Log), 0)
	for _, line := range res.Log {
		logT.Append(lua.LString(line))
	}
	out.RawSetString("log", logT)
	return out
}

// codeTable is a truth row's code = { instructions, cycles, events }:
// what executed at the function's addresses (sim.FunctionTruth.Code);
// events is the row's own events table when they are the same.
func codeTable(L *lua.LState, ft sim.FunctionTruth, events *lua.LTable, evKeys []string) *lua.LTable {
	c := L.CreateTable(0, 3)
	c.RawSetString("instructions", ResultValue(L, ft.Code.Instructions))
	c.RawSetString("cycles", ResultValue(L, ft.Code.Cycles))
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
		t.RawSetString(k, ResultValue(L, m[k]))
	}
	return t
}
