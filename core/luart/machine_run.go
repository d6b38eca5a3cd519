package luart

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/runerr"
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
	f := luavm.CheckFields(L, fn, L.Get(2), "duration_us", "workload", "import")
	if !f.Has("duration_us") {
		f.Errorf("duration_us", "is required: the simulated time to run, in microseconds (m:run{ duration_us = 100000, workload = ... })")
	}
	dur := f.Uint("duration_us", 0, 0, maxRunUS)
	if !f.Has("workload") {
		f.Errorf("workload", "is required: a workload file's path or a table { process = p, functions = { ... } }")
	}
	spec, key, _ := rt.workloadSpec(L, f, m)
	checkWorkloadFits(f, spec, m)
	rt.mustRun(L, m, fn)
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := m.sim.RunCached(ctx, rt.cfg.Prepared, key, dur, spec)
	if err != nil {
		rt.raiseRunError(L, m, fn, ctx, err)
	}
	L.Push(rt.runResultTable(L, res))
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
		rt.RecordBug(&runerr.Error{Kind: runerr.KindBug, Message: fmt.Sprintf("%s: %s: %v", rt.CallerWhere(L), fn, err)})
	}
	L.RaiseError("%s: %v", fn, err)
}

// workloadSpec reads the workload field: a path (resolved from the
// scenario's folder, inside the folders it may read: workload_path.go)
// or a table (workloadTable). A file that cannot be read is bad input
// (exit status 2); one that reads but is not a workload is the
// scenario's error. key names a file's content (importer.Loaded.Key; ""
// for a table, made for its run); im is an imported profile's provenance
// (nil for a workload TOML or a table).
func (rt *Runtime) workloadSpec(L *lua.LState, f *luavm.Fields, m *machine) (spec *workload.Spec, key string, im *importer.Imported) {
	switch v := f.Get("workload").(type) {
	case lua.LString:
		// a workload TOML, or a profile imported as it is read
		path, real, err := rt.workloadPath(string(v))
		if err != nil {
			rt.raiseInput(f, "workload", err)
		}
		ld, err := rt.cfg.Workloads.LoadWith(real, rt.importOptions(L, f, m))
		if err != nil {
			if unreadable(err) {
				rt.raiseInput(f, "workload", err)
			}
			rt.raiseImportBudget(L, f, err)
			f.Errorf("workload", "%v", err)
		}
		rt.noteInputSum(path, ld.SHA256)
		rt.warnImport(string(v), ld)
		rt.noteImport(ld.Imported)
		return ld.Spec, ld.Key, ld.Imported
	case *lua.LTable:
		if f.Has("import") {
			f.Errorf("import", "is for a profile file the run imports (workload = PATH); a workload table is not imported")
		}
		spec, err := workloadTable(v, m)
		if err != nil {
			f.Errorf("workload", "%v", err)
		}
		return spec, "", nil
	default:
		f.Errorf("workload", "expected a workload file's path or a table, got %s", luavm.TypeName(v))
	}
	return nil, "", nil
}

// raiseImportBudget raises the error of a profile's import that the
// run's budgets stopped: its memory budget, which the import holds by
// counting the bytes of its stacks as they are allocated (as `proflab
// workload import --memory` does), fails the run as a memory budget
// failure; a run's context that ended (the time budget, the heap
// watchdog) as that. Other errors are left to the caller.
func (rt *Runtime) raiseImportBudget(L *lua.LState, f *luavm.Fields, err error) {
	var be *importer.BudgetError
	if errors.As(err, &be) {
		rt.RaiseBudget(L, "%s{...}: field \"workload\": %v", f.Fn, err)
	}
	if rt.Context().Err() != nil {
		rt.RaiseEnded(L, f.Fn, "while importing the workload", "raise the budget (--memory, --timeout), or import a smaller profile")
	}
}

// importOptions reads the import field of m:run and m:images: the
// choices of a profile file's import, { process = NAME_OR_PID, format =
// NAME, symbols = PATH }, as `proflab workload import --process --format
// --symbols` makes them. The symbol listing is a file the scenario reads
// as it reads workloads (workload_path.go), recorded among its inputs.
func (rt *Runtime) importOptions(L *lua.LState, f *luavm.Fields, m *machine) importer.LoadOptions {
	o := importer.LoadOptions{Arch: m.km.Arch().String(), Memory: rt.MemoryLimit(), Ctx: rt.Context()}
	if !f.Has("import") {
		return o
	}
	if _, ok := f.Get("import").(*lua.LTable); !ok {
		f.Errorf("import", "expected a table { process = NAME_OR_PID, format = NAME }, got %s", luavm.TypeName(f.Get("import")))
	}
	im := luavm.CheckFields(L, f.Fn+"{...}.import", f.Get("import"), "process", "format", "symbols")
	switch v := im.Get("process").(type) {
	case lua.LString:
		o.Process = string(v)
	case lua.LNumber:
		if float64(v) < 0 || float64(v) != float64(int64(v)) {
			im.Errorf("process", "%v is not a process id: give a pid (a whole number) or a process's name", v)
		}
		o.Process = fmt.Sprint(int64(v))
	case *lua.LNilType:
	default:
		im.Errorf("process", "expected a process's name or pid, got %s", luavm.TypeName(v))
	}
	if o.Process == "" && im.Has("process") {
		im.Errorf("process", "is empty: give a process's name or pid, or leave process out for every process")
	}
	format, err := importer.ParseFormat(im.String("format", ""))
	if err != nil {
		im.Errorf("format", "%v", err)
	}
	o.Format = format
	if name := im.String("symbols", ""); name != "" {
		path, real, err := rt.workloadPath(name)
		if err != nil {
			rt.raiseInput(im, "symbols", err)
		}
		data, err := input.ReadFile(input.Workload, real)
		if err != nil {
			rt.raiseInput(im, "symbols", err)
		}
		sum := sha256.Sum256(data)
		o.Symbols, o.SymbolsSum = real, hex.EncodeToString(sum[:])
		rt.noteInputSum(path, o.SymbolsSum)
	}
	return o
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
		rt.Log(fmt.Sprintf("proflab: warning: workload %s: %s", name, w))
	}
}

// checkWorkloadFits refuses what a workload asks of the machine that the
// machine lacks: a process named but never made (m:process{ name = ... }),
// a thread's cpu beyond the machine's processors. Fields are named as the
// workload spelled them (spec.Field).
func checkWorkloadFits(f *luavm.Fields, spec *workload.Spec, m *machine) {
	n := m.km.CPUCount()
	var byName map[string]*kernel.Process
	for i, p := range spec.Processes {
		if p.Proc == nil && !spec.CreateProcesses {
			if byName == nil {
				byName = m.km.ProcessesByName()
			}
			if byName[p.Name] == nil {
				f.Errorf("workload", "%s: no process named %q on this machine; make it first with m:process{ name = %q }", spec.Field(fmt.Sprintf("process[%d].name", i+1)), p.Name, p.Name)
			}
		}
		for j, t := range p.Threads {
			if t.CPU >= n {
				f.Errorf("workload", "%s: %d, but the machine has %d processor%s (0…%d)", spec.Field(fmt.Sprintf("process[%d].thread[%d].cpu", i+1, j+1)), t.CPU, n, plural(n), n-1)
			}
		}
	}
}

// unreadable reports whether a workload file's error is that it could not
// be read (missing, not a regular file, too large, no permission), not
// that its content is wrong.
func unreadable(err error) bool {
	var pe *fs.PathError
	return input.Refused(err) || errors.As(err, &pe)
}
