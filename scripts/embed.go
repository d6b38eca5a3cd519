// Package scripts holds proflab's Lua library, the modules scenarios
// `require` ("stats", "assert", …), embedded into the binary. The files
// are plain Lua 5.1 beside this one; the interpreter's require
// (core/luavm) finds them, as the proflab module (core/luart) configures it.
package scripts

import "embed"

// FS is the library: one NAME.lua per module at its root, and the
// re-created Windows tools in tools/ (require "tools.kernrate").
//
//go:embed *.lua tools/*.lua
var FS embed.FS
