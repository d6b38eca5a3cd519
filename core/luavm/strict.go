package luavm

import (
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// A name a library module does not have is an error, not a nil: a
// misspelt `lab.ProfileTme` used to read as nil, which a service takes for
// 0 = ProfileTime, and the scenario passed on the wrong source. Library
// modules get that rule here (strictModule); a host module (proflab's lab)
// builds its own __index with MissingName.

// strictModule gives the table a library module returned a metatable
// whose __index raises an error for a name the module does not have,
// unless the module has a metatable of its own.
func strictModule(L *lua.LState, module string, v lua.LValue) {
	t, ok := v.(*lua.LTable)
	if !ok || t.Metatable != lua.LNil {
		return
	}
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		var names []string
		t.ForEach(func(k, _ lua.LValue) {
			if s, ok := k.(lua.LString); ok {
				names = append(names, string(s))
			}
		})
		L.RaiseError("%s", MissingName(fmt.Sprintf("the library module %q", module), L.Get(2), names))
		return 0
	}))
	L.SetMetatable(t, mt)
}

// MissingName is the error for reading name from a module that has the
// given names: the closest of them, if any is close.
func MissingName(module string, name lua.LValue, names []string) string {
	s, isString := name.(lua.LString)
	if !isString {
		return fmt.Sprintf("%s has no field %s (a %s): its fields are named by strings", module, lua.LVAsString(name), name.Type())
	}
	msg := fmt.Sprintf("%s has no %s", module, string(s))
	if close := closestNames(string(s), names, 3); len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, ", ") + "?"
	}
	return msg
}

// closestNames are at most n of names nearest to s, all at the smallest
// distance found (case ignored; transposed letters count as one edit;
// ties by name), among those close enough to be a misspelling: at most a
// third of s's length, and at least 2.
func closestNames(s string, names []string, n int) []string {
	limit := max(2, len(s)/3)
	low := strings.ToLower(s)
	best := limit + 1
	var out []string
	for _, name := range names {
		d := transposeDistance(low, strings.ToLower(name))
		switch {
		case d < best:
			best, out = d, []string{name}
		case d == best:
			out = append(out, name)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// transposeDistance is the optimal string alignment distance of a and b:
// Levenshtein's, with a swap of two neighbouring letters as one edit.
func transposeDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
