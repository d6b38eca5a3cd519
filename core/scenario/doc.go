// Package scenario runs Lua scenarios: one fresh sandboxed state per run
// (core/luart's Runtime, on core/luavm's interpreter), a wall-clock
// budget, checks, records and errors gathered into a Result, and the
// helpers the `proflab run` and `proflab test` commands need (finding
// scenarios, reading --set values, writing result.json). Everything here is safe to use from several goroutines at
// once: runs share nothing.
package scenario
