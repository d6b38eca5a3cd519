package luavm

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// BenchmarkLongBuiltins: the builtins that look at the run's context as
// they go, against gopher-lua's own on the same script.
func BenchmarkLongBuiltins(b *testing.B) {
	setup := `local t, u = {}, {} for i = 1, 1e5 do t[i] = (i * 7919) % 1e5; u[i] = "word" .. i end `
	for _, c := range []struct{ name, src string }{
		{"sort", setup + `return function() local c = {} for i = 1, #t do c[i] = t[i] end table.sort(c) end`},
		{"sort_by_function", setup + `return function() local c = {} for i = 1, #t do c[i] = t[i] end table.sort(c, function(a, b) return a > b end) end`},
		{"concat", setup + `return function() return table.concat(u, ",", 1, 1000) end`}, // (gopher-lua's own overflows its registry at some thousands of elements: it pushes them all)
		{"rep", `return function() return string.rep("abc", 1e7) end`},
	} {
		for _, which := range []string{"gopher-lua", "proflab"} {
			b.Run(c.name+"/"+which, func(b *testing.B) {
				L := lua.NewState()
				defer L.Close()
				if which == "proflab" {
					vm, _ := newTestState(b, Config{MemoryLimit: -1})
					L = vm.L
				}
				if err := L.DoString(c.src); err != nil {
					b.Fatal(err)
				}
				fn := L.Get(-1)
				for b.Loop() {
					if err := L.CallByParam(lua.P{Fn: fn, NRet: 0, Protect: true}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
