// Package luart is proflab's Lua runtime: a sandboxed gopher-lua state per
// scenario run, the `proflab` module (lab) with its constants and helpers,
// exact unsigned 64-bit values (lab.u64), a `require` that finds the
// embedded scripts/ library and the scenario's own folder, and the argument
// conversion helpers every binding uses. The contract it implements is
// spec/lua-api.md.
//
// A Runtime owns one *lua.LState and is used by one goroutine at a time;
// runtimes share nothing, so many runs may execute side by side in one
// process. Every Go function the runtime registers runs under a guard that
// turns a Go panic into a Lua error labelled as a proflab bug (and marks the
// run as failed even if the script catches the error).
package luart
