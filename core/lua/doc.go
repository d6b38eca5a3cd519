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
// The runtime converts lua-api.md's workload table forms to the workload
// model (core/workload) itself (workload_table.go).
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
//     keeps per-page metadata); read_u32s at most 2^24 values.
//   - Records (lab.record) accept numbers, strings, booleans, u64 values
//     and tables of them (arrays or string-keyed); a later record replaces
//     the earlier values of the same keys; a bad record changes nothing.
//   - u64 arithmetic also accepts the strings lab.u64 accepts, and has
//     ^ (modulo 2^64) and unary minus. A u64 is a userdata: as a table
//     key, two equal u64 values are different keys (use tostring(u)).
//   - Syntax errors read "file:line:column: syntax error near 'x'".
//   - m:run's result also has start and end (simulated time, 100 ns
//     units), bugcheck (when an interrupt bug-checked the machine), log
//     (the simulator's lines), and per function image, base, size and
//     events; interrupts_by_cpu is keyed by processor number from 0.
//   - Extras: lab.seed, lab.win32_name(code), lab.bugcheck_name(code),
//     m:version(), m:arch(), x:cpu(), s:running(), and units and precise
//     in m:hal_sources() rows.
package luart
