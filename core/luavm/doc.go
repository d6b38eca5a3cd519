// Package luavm is proflab's sandboxed Lua interpreter: one gopher-lua
// state per run (State) with the sandbox, the memory budgets and the
// bounded builtins, the heap watchdog, require with its compile caches,
// a seeded math.random, stable names for reference values, exact
// unsigned 64-bit values (u64), the argument and value helpers bindings
// read their arguments with, and errors with file:line and tracebacks.
//
// It knows nothing of the lab: it imports no model package (kernel,
// simulator, workload, lab, outputs, plugin host, importer,
// configuration; a test says so), and its tests build no machine. The
// proflab module (core/luart) is built on a State: it preloads itself as
// require("proflab"), registers its bindings with State.Func, and learns
// what it needs through Config's hooks — FileRead (a module was read from
// the scenario's folder: a run input), Ended (the chunk ended: settle what
// it left running) and SandboxAdvice (what the sandbox's refusals tell a
// scenario to use instead). A host's Go callback that calls back into Lua
// from inside a binding runs on Active.
//
// Where a change goes: Lua's semantics and the sandbox's rules (a
// builtin, a budget, the strictness of globals and library modules,
// require, error and traceback text, number conversion) belong here; what
// a scenario can do with the lab (lab.*, machines, processes, sessions,
// m:run) belongs in core/luart.
//
// A State is used by one goroutine at a time (ActiveCall and Stop may be
// called from any); states share nothing but the process-wide caches of
// compiled chunks (compile.go), which hold immutable byte code, and the
// heap watchdog (watchdog.go), so many runs execute side by side in one
// process. Every Go function registered through Func runs under a guard
// that turns a Go panic into a Lua error labelled as a proflab bug and
// marks the run as failed (Bug) even if the script catches the error.
//
// Files: state.go (State, Config, the hooks), sandbox.go (the libraries
// and what is left out), strict.go (strict library modules and the
// misspelling hints), budget.go, budget_string.go and watchdog.go (the
// memory budget), require.go and compile.go (modules, compile caches),
// random.go, stableid.go (tostring, print), format.go (string.format, on the leaf
// cformat: C's printf conversions), u64.go,
// convert.go and values.go (numbers, u64, Lua ⇄ Go values), args.go and
// fields.go (argument and options-table readers), options.go (the same
// checks for the Lua library: the proflab module's lab.options,
// lab.arguments and lab.suggest), errors.go (the panic guard, Exec,
// messages and tracebacks).
//
// # Sandbox choices
//
// These are the interpreter's rules where Lua 5.1 and the scenario API's
// contract are silent (the user's view is in docs/scenario-api.md):
//
//   - Only base, table, string, math (seeded from Config.Seed) and
//     coroutine are opened; load, loadstring, loadfile, dofile, module and
//     _printregs are removed, and print writes a line to Config.Log.
//     Reading io, os, debug, package, load, loadstring, loadfile, dofile
//     or module raises an error saying the sandbox leaves them out (a
//     metatable on _G), followed by Config.SandboxAdvice; other missing
//     globals are nil as in Lua.
//   - math.random and math.randomseed use a PCG generator owned by the
//     state: the same seed gives the same sequence, math.randomseed(n)
//     gives the sequence of a run seeded with n, and states side by side
//     do not disturb each other (gopher-lua's uses Go's global one).
//   - require takes module names only (identifiers separated by dots, so
//     a module can never name a file outside the scenario's folder). A
//     preloaded name wins; then the scenario's folder (name.lua, dots as
//     folders), then Config.Library, whose modules are named
//     "scripts/name.lua" in messages. Each module runs once per state
//     (with its name as argument); a loop is an error naming it.
//   - A library module's table is strict: reading a name it does not have
//     is an error naming the closest names (a misspelling otherwise reads
//     as nil). Modules of the scenario's folder are plain tables.
//   - A run has a memory budget (Config.MemoryLimit, 1 GiB by default):
//     string concatenation (..), string.rep, table.concat,
//     string.format and string.gsub refuse results over it before
//     building them (concat.go: chains of .. are compiled to a call of
//     the sandbox's own concatenation), unpack returns at most 8000
//     values and coroutines nest at most 200 deep (Lua 5.1's
//     LUAI_MAXCSTACK and LUAI_MAXCCALLS), and the heap watchdog ends the
//     run past the budget (budget.go, watchdog.go). A budget error fails
//     the run even when the script catches it.
//   - tostring, print and string.format's %s show tables, functions,
//     userdata and coroutines as "table: 0x00000001", numbered per run in
//     the order first shown, never by heap address, so that the same seed
//     gives the same bytes (stableid.go); hosts show values through
//     ToString to keep that rule.
//   - string.format is Lua 5.1's as built by gcc for x86-64 Linux
//     (format.go over cformat): its conversions, flags and errors, C's casts of the
//     argument (cvttsd2si's answer out of range) and glibc's printf,
//     checked against C (testdata/format) and the real lua5.1. A u64 is
//     exact in the integer conversions (%d and %i show it unsigned); %s
//     is tostring; %c of 0 is a zero byte and %s of a short string with
//     a zero byte an error, where Lua 5.1 silently loses bytes.
//   - A Lua call stack overflow (more than 1024 nested calls) is the
//     scenario's error with its file:line, and fails the run even when
//     pcall or xpcall caught it (protected.go: they are the sandbox's own,
//     which keep gopher-lua's state sound at an overflow); long error
//     messages keep 4 KiB
//     (head and tail) and their length; an error value that is not a
//     string is described ("error raised with a table value").
//   - Syntax errors read "file:line:column: syntax error near 'x'"; one
//     at the end of the file names the file's last non-blank line. A
//     chunk whose syntax nests more than 1000 levels (blocks, brackets,
//     operators) is refused at that line ("chunk has too many syntax
//     levels", syntax.go), before the compiler's recursion could end the
//     process.
//   - Numbers a binding reads must be exact: integral and below 2^53 in
//     magnitude, with a hint to use lab.u64 beyond that (a hex literal
//     above 2^53 silently loses precision, above 2^63 it reads as NaN).
//     A u64 is a userdata holding an exact unsigned 64-bit value,
//     printed "0x" and upper-case hex; its arithmetic wraps modulo 2^64,
//     also accepts the strings lab.u64 accepts, and has ^ and unary
//     minus. As a table key, two equal u64 values are different keys
//     (use tostring(u)). Values returned to Lua are numbers below 2^53
//     and u64 values from there on (ResultValue).
//   - Messages name the function and the argument as the user wrote them
//     ("p:NtClose: argument #1 (Handle): …", `lab.machine{...}: field
//     "cpus": …`); an unknown field of an options table names the
//     closest one and lists them all (every unknown field, in sorted
//     order, so that the error is the same every run).
//   - The Lua library checks its options and arguments with the same
//     rule and words (OptionsFunc, ArgumentsFunc), raising at the line of
//     the nearest caller that is not a library module, as CallerWhere
//     finds it: the scenario's line, not the library's.
package luavm
