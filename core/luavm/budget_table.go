package luavm

import (
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The table builtins that work on a whole table in one Go call, looking
// at the run's context as they go: a table.concat or table.sort of
// millions of elements stops within milliseconds when a budget ends the
// run, instead of going on after the run was abandoned. Their answers
// are gopher-lua's.

// checkElements is how many elements a table builtin handles between
// two looks at the run's context.
const checkElements = 1 << 12

// tableConcat is table.concat(t [, sep [, i [, j]]]), refusing results
// over the budget (it adds up the sizes before building anything) and
// building the result a chunk at a time.
func (s *State) tableConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	n := t.Len()
	i := L.OptInt(3, 1)
	j := L.OptInt(4, n)
	if L.GetTop() == 3 && (i > n || i < 1) {
		L.Push(lua.LString(""))
		return 1
	}
	// the range gopher-lua's concat uses: i and j clamped to 1…#t
	i, j = max(min(i, n), 1), min(j, n)
	if i > j {
		L.Push(lua.LString(""))
		return 1
	}
	var size int64
	limit := s.memoryLimit()
	for k := i; k <= j; k++ {
		switch v := t.RawGetInt(k).(type) {
		case lua.LString:
			size += int64(len(v))
		case lua.LNumber:
			size += 24
		default:
			L.RaiseError("invalid value (%s) at index %d in table for concat", v.Type().String(), k)
		}
		if k < j {
			size += int64(len(sep))
		}
		if limit > 0 && size > limit {
			s.checkSize(L, "table.concat", size)
		}
		if (k-i)%checkElements == 0 {
			s.checkEnded(L, "table.concat")
		}
	}
	var b strings.Builder
	b.Grow(int(size))
	next := buildChunk
	for k := i; k <= j; k++ {
		b.WriteString(lua.LVAsString(t.RawGetInt(k)))
		if k < j {
			b.WriteString(sep)
		}
		if b.Len() >= next || (k-i)%checkElements == 0 {
			s.checkEnded(L, "table.concat")
			next = b.Len() + buildChunk
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// tableSort is table.sort(t [, comp]): gopher-lua's sort (sort.Sort of
// the elements 1…#t, by comp or by Lua's <), looking at the run's
// context every checkElements comparisons. (gopher-lua sorts its array
// part as it is, trailing nil values included, which compare as an
// error; those are no element of #t here.)
func (s *State) tableSort(L *lua.LState) int {
	t := L.CheckTable(1)
	var comp *lua.LFunction
	if L.GetTop() != 1 {
		comp = L.CheckFunction(2)
	}
	n := t.Len()
	values := make([]lua.LValue, n)
	for k := range values {
		values[k] = t.RawGetInt(k + 1)
	}
	sort.Sort(&sorter{s: s, L: L, comp: comp, values: values})
	for k, v := range values {
		t.RawSetInt(k+1, v)
	}
	return 0
}

// sorter is table.sort's sort.Interface.
type sorter struct {
	s      *State
	L      *lua.LState
	comp   *lua.LFunction
	values []lua.LValue
	steps  int
}

func (o *sorter) Len() int      { return len(o.values) }
func (o *sorter) Swap(i, j int) { o.values[i], o.values[j] = o.values[j], o.values[i] }

func (o *sorter) Less(i, j int) bool {
	if o.steps++; o.steps%checkElements == 0 {
		o.s.checkEnded(o.L, "table.sort")
	}
	if o.comp == nil {
		return o.L.LessThan(o.values[i], o.values[j])
	}
	o.L.Push(o.comp)
	o.L.Push(o.values[i])
	o.L.Push(o.values[j])
	o.L.Call(2, 1)
	less := lua.LVAsBool(o.L.Get(-1))
	o.L.Pop(1)
	return less
}
