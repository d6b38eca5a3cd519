// Package luart is proflab's Lua runtime: the `proflab` module (lab) with
// its constants and helpers, and the bindings of the lab's objects
// (lab.machine and everything on it), on the sandboxed interpreter of
// core/luavm. The contract it implements, and the user's reference, is
// docs/scenario-api.md.
//
// A Runtime is a luavm.State (embedded: Exec, SetContext, the budgets,
// errors and tracebacks are the interpreter's) with the proflab module
// preloaded as require("proflab"), and holds only what the lab adds: the
// checks, records and parameters of the run, the files it read, the
// machines' labs and their HAL plugins. It is used by one goroutine at a
// time; runtimes share nothing, so many runs execute side by side.
//
// The runtime builds no machine itself: lab.machine{...} resolves its
// fields (defaults from the configuration's [machine] table) and asks the
// composition root, core/lab, to assemble the lab — the simulated
// processors (core/sim) that receive the HALs' hardware programming and
// that m:run drives, the HALs from the runtime's lab.HALProvider (the
// shipped HALs in-process by default, the configuration's plugin host
// when core/scenario is given a Setup), and the kernel machine on them.
// A workload table becomes plain Go values here, its processes the
// machine's (workload_table.go); the workload model decodes them, keys,
// forms and errors included (workload.DecodeTable).
//
// Where a change goes: what a scenario can do with the lab belongs here,
// in the file of the Lua object it serves; Lua's semantics and the
// sandbox's rules (builtins, budgets, require, error text, number and u64
// conversion, argument readers) belong in core/luavm.
//
// Files, one per Lua object, each opening with its method table (the
// machine methods that make an object live in that object's file):
// lab.go (the proflab module: functions, constants, lab.check,
// lab.record), lab_params.go (lab.params), lab_machine.go (lab.machine{...}
// and its hal_settings), machine.go (m: and its methods), machine_run.go
// and machine_run_result.go (m:run and its result), machine_images.go
// (m:images), machine_interrupt.go (m:interrupt), caller.go (p, t and k,
// made by m:process, p:thread, m:kernel), caller_memory.go (their memory
// methods), caller_services.go (the NT services on them), session.go
// (m:start_kernel_logger and s:), workload_table.go (the workload table
// forms), constants.go (the named constants), inputs.go (the files a run
// read), plugin_death.go (a HAL plugin dying mid-run), bindings.go (the
// API's list, for the reference's completeness test).
//
// # Lab API choices (where the scenario API's contract is silent)
//
//   - require("proflab") is always the lab module, whatever the
//     scenario's folder holds; the embedded scripts/ library is the
//     interpreter's library (Config.Library).
//   - A name the proflab module does not have is an error naming the
//     closest names, never a nil that a service would read as 0
//     (lab.ProfileTme is not ProfileTime); constants are resolved on
//     first read.
//   - lab.check records the file:line of the nearest caller that is not a
//     library module, so checks made by scripts/ helpers point at the
//     scenario's line. It returns whether the check passed; its message
//     shows values as tostring does (stable names).
//   - lab.log writes as print does; the sandbox's refusal of io, os, load…
//     points at print, lab.log, lab.params and require.
//   - lab.params reads the run's parameters through a proxy, so the
//     runtime knows which ones the scenario read (ParamsRead: a sweep
//     axis nobody reads is a typo the sweep reports); pairs and next on
//     it walk the parameters (and count them all as read).
//   - A service call that bug-checks the machine returns nil and the bug
//     check's table (as m:interrupt returns false and the table).
//   - m:start_kernel_logger{} without profile starts the logger without
//     EVENT_TRACE_FLAG_PROFILE; m:process{} without name is named "app".
//     Its stackwalk takes xperf -stackwalk's names of the two events the
//     model logs, Profile and PmcInterrupt, in any case (xperf ignores
//     case); s:events shows a walk's frames with the sample's IP first.
//   - Values written to memory (write_u8 … write_u64) must fit the width:
//     a negative number is stored as its two's complement if it fits the
//     signed range, anything wider is an error (services, by contrast,
//     truncate as the calling convention does).
//   - alloc, alloc_at and protect take at most 4 GB at once (the model
//     keeps per-page metadata); read_u32s at most 2^24 values; a machine's
//     allocations hold at most 8 GiB at once.
//   - A method of p, k or t called on the wrong kind of object names the
//     method and the kinds it works on.
//   - Records (lab.record) accept numbers, strings, booleans, u64 values
//     and tables of them (arrays or string-keyed); a later record replaces
//     the earlier values of the same keys; a bad record changes nothing.
//   - m:run's result also has start and end (simulated time, 100 ns
//     units), bugcheck (when an interrupt bug-checked the machine), log
//     (the simulator's lines), and per function image, base, size and
//     events, inclusive = { instructions, cycles } (its own plus its
//     callees', by the workload's caller keys) and caller when it has one;
//     interrupts_by_cpu is keyed by processor number from 0.
//   - The modules required from the scenario's folder and the workload
//     files m:run and m:images read are the run's inputs (Inputs), by
//     absolute path with the sha256 of what was read.
//   - lab.options(fn, opts, spec), lab.arguments(fn, spec, ...) and
//     lab.suggest(name, names) are the Lua library's strictness
//     (core/luavm's OptionsFunc, ArgumentsFunc, SuggestFunc): scripts/
//     checks its options and arguments with them, in the bindings' words,
//     and a scenario's own helpers may too.
//   - Extras: lab.seed, lab.win32_name(code), lab.bugcheck_name(code),
//     m:version(), m:arch(), x:cpu(), s:running(), and units and precise
//     in m:hal_sources() rows.
//
// # Fidelity additions (docs/scenario-api.md, "Fidelity additions")
//
//   - lab.machine{ hal_settings = { NAME = { key = value } } } merges
//     settings key by key over the configuration's [hal.NAME.settings] for
//     that machine only; NAME must be one of the machine's HALs; values are
//     booleans, strings, integers (a fraction is an error) and tables of
//     them ({} is an empty list). The HAL decodes them strictly; a HAL
//     that refuses to configure with them raises a Lua error naming
//     hal_settings (the scenario's error, not a plugin failure). The
//     kernel's in-process test HALs take none.
//   - m:on_hal_call(fn) runs fn inside every kernel call into a HAL,
//     before the HAL acts; HAL calls fn causes do not run it again (no
//     recursion); an error in fn stops the machine like a HAL failure and
//     ends the service call with it. One hook per machine; nil removes it.
//   - p:duplicate_handle(h, access [, target]) is the lab's stand-in for
//     NtDuplicateObject: any access mask is granted (no check against the
//     object's security), the new handle lands in target's table (p's by
//     default); a handle p does not have is a Lua error, not a status.
//   - m:hal_log() rows of call "counters" are HalQueryProfileNumberOfCounters
//     (class 0x2C, one row per HAL, on processor 0, interval = the count).
package luart
