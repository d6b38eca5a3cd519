package luart

import (
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// libraryProtos holds the compiled form of the library's modules (and the
// runtime's own Lua helpers), keyed by chunk name and source, for every
// state of the process: a sweep makes a fresh state per run, and parsing
// the same embedded modules again for each run was a tenth of a short
// run's cost. A FunctionProto is never changed once compiled, so states on
// different goroutines share it (gopher-lua's documented way to share byte
// code). Only fixed sources are cached — the embedded library is finite —
// so a scenario's own chunks (and a fuzzer's endless ones) are not kept.
var libraryProtos sync.Map // chunk + "\x00" + source → *lua.FunctionProto

// loadLibrary is L.Load for a fixed chunk, compiled once per process.
func loadLibrary(L *lua.LState, src, chunk string) (*lua.LFunction, error) {
	key := chunk + "\x00" + src
	if p, ok := libraryProtos.Load(key); ok {
		return L.NewFunctionFromProto(p.(*lua.FunctionProto)), nil
	}
	tree, err := parse.Parse(strings.NewReader(src), chunk)
	if err != nil {
		return L.Load(strings.NewReader(src), chunk) // its error, as Load words it
	}
	proto, err := lua.Compile(tree, chunk)
	if err != nil {
		return L.Load(strings.NewReader(src), chunk)
	}
	libraryProtos.Store(key, proto)
	return L.NewFunctionFromProto(proto), nil
}
