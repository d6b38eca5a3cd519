// Package luart is proflab's Lua runtime: a sandboxed gopher-lua state per
// scenario run, the `proflab` module (lab) with its constants and helpers,
// exact unsigned 64-bit values (lab.u64), a `require` that finds the
// embedded scripts/ library and the scenario's own folder, the machine
// bindings (lab.machine and everything on it), and the argument conversion
// helpers every binding uses. The contract it implements is
// spec/lua-api.md.
//
// A Runtime owns one *lua.LState and is used by one goroutine at a time;
// runtimes share nothing, so many runs may execute side by side in one
// process. Every Go function the runtime registers runs under a guard that
// turns a Go panic into a Lua error labelled as a proflab bug (and marks the
// run as failed even if the script catches the error).
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
// # Choices where lua-api.md is silent
//
//   - require looks in the scenario's folder first (name.lua, dots as
//     folders), then in the embedded library; "proflab" is always the lab
//     module. Module names are identifiers separated by dots, so a module
//     can never name a file outside the scenario's folder.
//   - lab.check records the file:line of the nearest caller that is not a
//     library module, so checks made by scripts/ helpers point at the
//     scenario's line. It returns whether the check passed.
//   - A service call that bug-checks the machine returns nil and the bug
//     check's table (as m:interrupt returns false and the table).
//   - m:start_kernel_logger{} without profile starts the logger without
//     EVENT_TRACE_FLAG_PROFILE; m:process{} without name is named "app".
//   - Values written to memory (write_u8 … write_u64) must fit the width:
//     a negative number is stored as its two's complement if it fits the
//     signed range, anything wider is an error (services, by contrast,
//     truncate as the calling convention does).
//   - alloc, alloc_at and protect take at most 4 GB at once (the model
//     keeps per-page metadata); read_u32s at most 2^24 values; a machine's
//     allocations hold at most 8 GiB at once.
//   - A scenario has a memory budget (Config.MemoryLimit, 1 GiB by
//     default): string.rep and table.concat refuse larger results, unpack
//     returns at most 8000 values and coroutines nest at most 200 deep
//     (Lua 5.1's LUAI_MAXCSTACK and LUAI_MAXCCALLS), and a heap watchdog
//     ends the run past the budget (budget.go, watchdog.go). A budget
//     error fails the run even when the script catches it.
//   - tostring, print, string.format's %s and lab.check show tables,
//     functions, userdata and coroutines as "table: 0x00000001", numbered
//     per run in the order first shown, never by heap address, so that
//     the same seed gives the same bytes (stableid.go).
//   - A Lua call stack overflow (more than 1024 nested calls) is the
//     scenario's error with its file:line; a method of p, k or t called
//     on the wrong kind of object names the method and the kinds it works
//     on; long error messages keep 4 KiB (head and tail) and their length.
//   - Records (lab.record) accept numbers, strings, booleans, u64 values
//     and tables of them (arrays or string-keyed); a later record replaces
//     the earlier values of the same keys; a bad record changes nothing.
//   - u64 arithmetic also accepts the strings lab.u64 accepts, and has
//     ^ (modulo 2^64) and unary minus. A u64 is a userdata: as a table
//     key, two equal u64 values are different keys (use tostring(u)).
//   - Syntax errors read "file:line:column: syntax error near 'x'"; one
//     at the end of the file names the file's last non-blank line.
//   - Reading io, os, debug, package, load, loadstring, loadfile, dofile
//     or module raises an error saying the sandbox leaves them out (a
//     metatable on _G); other missing globals are nil as in Lua.
//   - m:run's result also has start and end (simulated time, 100 ns
//     units), bugcheck (when an interrupt bug-checked the machine), log
//     (the simulator's lines), and per function image, base, size and
//     events, inclusive = { instructions, cycles } (its own plus its
//     callees', by the workload's caller keys) and caller when it has one;
//     interrupts_by_cpu is keyed by processor number from 0.
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
