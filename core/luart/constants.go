package luart

import (
	"fmt"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/kernel/nt"
)

//go:generate go run ./internal/constgen/gen ../../kernel/nt constants_nt_gen.go

// constants returns every named constant the proflab module exports, by
// name: each KPROFILE_SOURCE (nt.NamedSources), each NTSTATUS
// (nt.Statuses), each Win32 error code (nt.Win32Errors) and every other
// numeric constant declared in kernel/nt (information classes, hook IDs,
// flags, access masks, privileges, bug-check codes…, generated into
// constants_nt_gen.go). It panics if two of them share a name with
// different values, which a test rules out.
func constants() map[string]uint64 {
	out := make(map[string]uint64, len(ntConstants)+128)
	add := func(name string, v uint64) {
		if old, ok := out[name]; ok && old != v {
			panic(fmt.Sprintf("proflab bug: constant %s is both %#x and %#x", name, old, v))
		}
		out[name] = v
	}
	for name, v := range ntConstants {
		add(name, v)
	}
	for _, s := range nt.NamedSources() {
		add(s.Name(), uint64(s))
	}
	for name, st := range nt.Statuses() {
		add(name, uint64(st))
	}
	for name, code := range nt.Win32Errors() {
		add(name, uint64(code))
	}
	return out
}

// constantValues is Constants as Lua numbers, built once per process and
// only read afterwards, so every state shares it: the proflab module
// resolves a constant on its first read (constantIndex) instead of
// copying hundreds of them into every run's state, which was a fifth of a
// short sweep run's cost.
var constantValues = sync.OnceValue(func() map[string]lua.LNumber {
	all := constants()
	out := make(map[string]lua.LNumber, len(all))
	for name, v := range all {
		out[name] = lua.LNumber(v)
	}
	return out
})
