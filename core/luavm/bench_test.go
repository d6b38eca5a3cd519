package luavm

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// BenchmarkState is a sandboxed state made, running a two-line script and
// closed ("sandbox"), next to a fresh gopher-lua state with the same
// libraries opened by gopher-lua's Open functions running the same script
// ("floor", as BenchmarkSweepOverhead's interpreter-floor): the cost of
// the sandbox alone, without a sweep's bookkeeping or the proflab module.
func BenchmarkState(b *testing.B) {
	const script = "local t = {}\nt.x = 1\n"
	b.Run("sandbox", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			vm := New(Config{Seed: 1})
			if err := vm.Exec("b.lua", []byte(script)); err != nil {
				b.Fatal(err.Detail())
			}
			vm.Close()
		}
	})
	b.Run("floor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			L := lua.NewState(lua.Options{SkipOpenLibs: true})
			for _, open := range []lua.LGFunction{lua.OpenBase, lua.OpenTable, lua.OpenString, lua.OpenMath, lua.OpenCoroutine} {
				L.Push(L.NewFunction(open))
				L.Call(0, 0)
			}
			if err := L.DoString(script); err != nil {
				b.Fatal(err)
			}
			L.Close()
		}
	})
}
