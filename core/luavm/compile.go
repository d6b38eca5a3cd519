package luavm

import (
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// compile compiles a chunk as the sandbox runs it: parsed, its syntax
// tree bounded in depth and its string concatenations made the budgeted
// concatenation (syntax.go, concat.go), compiled. A syntax error is
// worded as L.Load words it.
func compile(L *lua.LState, src, chunk string) (*lua.FunctionProto, error) {
	tree, err := parse.Parse(strings.NewReader(src), chunk)
	if err != nil {
		_, err = L.Load(strings.NewReader(src), chunk) // its error, as Load words it
		return nil, err
	}
	if err := checkSyntax(chunk, tree); err != nil {
		return nil, err
	}
	proto, err := lua.Compile(tree, chunk)
	if err != nil {
		return nil, err
	}
	useConcatenate(proto)
	return proto, nil
}

// loadChunk is L.Load for a chunk compiled as the sandbox runs it.
func loadChunk(L *lua.LState, src, chunk string) (*lua.LFunction, error) {
	proto, err := compile(L, src, chunk)
	if err != nil {
		return nil, err
	}
	return L.NewFunctionFromProto(proto), nil
}

// libraryProtos holds the compiled form of the library's modules (and the
// interpreter's own Lua helpers), keyed by chunk name and source, for every
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
	proto, err := compile(L, src, chunk)
	if err != nil {
		return nil, err
	}
	libraryProtos.Store(key, proto)
	return L.NewFunctionFromProto(proto), nil
}

// scenarioProtos holds the compiled form of the last scenarios run, for
// every state of the process: a sweep runs the same scenario in a fresh
// state for each of its runs, and compiling it again each time was a
// twentieth of a short run. It keeps at most maxScenarioProtos sources,
// so a stream of different chunks (a fuzzer's) does not grow it.
var scenarioProtos = struct {
	sync.Mutex
	keys  []string // oldest first
	proto map[string]*lua.FunctionProto
}{proto: map[string]*lua.FunctionProto{}}

// maxScenarioProtos is how many scenarios' compiled forms are kept.
const maxScenarioProtos = 8

// loadScenario is L.Load for a scenario's chunk, reusing its compiled
// form when the same chunk name and source ran before in this process.
func loadScenario(L *lua.LState, src, chunk string) (*lua.LFunction, error) {
	key := chunk + "\x00" + src
	c := &scenarioProtos
	c.Lock()
	cached, ok := c.proto[key]
	c.Unlock()
	if ok {
		return L.NewFunctionFromProto(cached), nil
	}
	p, err := compile(L, src, chunk)
	if err != nil {
		return nil, err
	}
	c.Lock()
	if _, ok := c.proto[key]; !ok {
		if len(c.keys) == maxScenarioProtos {
			delete(c.proto, c.keys[0])
			c.keys = c.keys[1:]
		}
		c.keys = append(c.keys, key)
		c.proto[key] = p
	}
	c.Unlock()
	return L.NewFunctionFromProto(p), nil
}
