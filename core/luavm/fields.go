package luavm

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/suggest"
)

// Fields reads an options table such as the one of lab.machine{...}: it
// knows the allowed field names, rejects unknown ones with a suggestion,
// and reads typed fields with defaults, raising Lua errors that name the
// function and the field.
type Fields struct {
	L       *lua.LState
	Fn      string // "lab.machine"
	t       *lua.LTable
	allowed []string
}

// CheckFields validates lv (nil counts as an empty table) as an options
// table of fn whose keys must be among allowed.
func CheckFields(L *lua.LState, fn string, lv lua.LValue, allowed ...string) *Fields {
	f := &Fields{L: L, Fn: fn, allowed: allowed}
	switch v := lv.(type) {
	case *lua.LTable:
		f.t = v
	case *lua.LNilType:
		f.t = L.NewTable()
	default:
		L.RaiseError("%s: expected a table of options (%s{ %s = … }), got %s", fn, fn, firstOr(allowed, "name"), TypeName(lv))
	}
	if problem := keysProblem(fn, fn, f.t, allowed); problem != "" {
		L.RaiseError("%s", problem)
	}
	return f
}

// keysProblem is what is wrong with the keys of t as the options of fn
// whose keys must be among allowed ("" when nothing): a positional value,
// or the unknown fields, each with the nearest allowed one (in sorted
// order, so that a run's error is the same every time). form is how a
// call with options is written, before its braces, in the advice
// ("lab.machine" for lab.machine{ cpus = … }; "" for { base = … }).
func keysProblem(fn, form string, t *lua.LTable, allowed []string) string {
	Materialize(t)
	var positional lua.LValue
	var unknown []string
	t.ForEach(func(k, _ lua.LValue) {
		ks, ok := k.(lua.LString)
		switch {
		case !ok && (positional == nil || compareKeys(k, positional) < 0):
			positional = k // the first in EachPair's order, every run
		case ok && !contains(allowed, string(ks)):
			unknown = append(unknown, string(ks))
		}
	})
	if positional != nil {
		return fmt.Sprintf("%s{...}: unexpected positional value [%s]; options are passed by name, e.g. %s{ %s = … }",
			fn, lua.LVAsString(positional), form, firstOr(allowed, "name"))
	}
	if len(unknown) > 0 {
		return unknownFields(fn, unknown, allowed)
	}
	return ""
}

// unknownFields builds the message for the fields fn does not take: each
// with the nearest one it takes, then the list of those.
func unknownFields(fn string, keys, allowed []string) string {
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, key := range keys {
		parts[i] = fmt.Sprintf("unknown field %q", key)
		if s := suggest.Closest(key, allowed); s != "" {
			parts[i] += fmt.Sprintf(" (did you mean %q?)", s)
		}
	}
	msg := fn + "{...}: " + strings.Join(parts, "; ")
	sorted := append([]string(nil), allowed...)
	sort.Strings(sorted)
	if len(sorted) == 0 {
		return msg + "; it takes no fields"
	}
	return msg + "; its fields are " + strings.Join(sorted, ", ")
}

// Table is the options table itself.
func (f *Fields) Table() *lua.LTable { return f.t }

// Has reports whether the field is present (not nil).
func (f *Fields) Has(name string) bool { return f.Get(name) != lua.LNil }

// Get returns the raw value of a field (LNil when absent).
func (f *Fields) Get(name string) lua.LValue { return f.t.RawGetString(name) }

// Errorf raises a Lua error about one field.
func (f *Fields) Errorf(name, format string, args ...any) {
	f.L.RaiseError("%s{...}: field %q: %s", f.Fn, name, fmt.Sprintf(format, args...))
}

// String reads a string field.
func (f *Fields) String(name, def string) string {
	lv := f.Get(name)
	if lv == lua.LNil {
		return def
	}
	s, ok := lv.(lua.LString)
	if !ok {
		f.Errorf(name, "expected a string, got %s", TypeName(lv))
	}
	return string(s)
}

// Enum reads a string field that must be one of choices.
func (f *Fields) Enum(name, def string, choices ...string) string {
	s := f.String(name, def)
	if !contains(choices, s) {
		quoted := make([]string, len(choices))
		for i, c := range choices {
			quoted[i] = fmt.Sprintf("%q", c)
		}
		f.Errorf(name, "%q is not accepted; expected one of %s", s, strings.Join(quoted, ", "))
	}
	return s
}

// Bool reads a boolean field.
func (f *Fields) Bool(name string, def bool) bool {
	lv := f.Get(name)
	if lv == lua.LNil {
		return def
	}
	b, ok := lv.(lua.LBool)
	if !ok {
		f.Errorf(name, "expected true or false, got %s", TypeName(lv))
	}
	return bool(b)
}

// Uint reads a whole-number field (a number or u64) in [min, max].
func (f *Fields) Uint(name string, def, min, max uint64) uint64 {
	lv := f.Get(name)
	if lv == lua.LNil {
		return def
	}
	v, err := countValue(lv, min, max)
	if err != nil {
		f.Errorf(name, "%s", err)
	}
	return v
}

// Int is Uint for small non-negative ranges, as an int.
func (f *Fields) Int(name string, def, min, max int) int {
	return int(f.Uint(name, uint64(def), uint64(max0(min)), uint64(max0(max))))
}

// Service reads a field as a service parameter of width bytes, as
// Args.Service does; def is used when the field is absent.
func (f *Fields) Service(name string, width int, def uint64) uint64 {
	lv := f.Get(name)
	if lv == lua.LNil {
		return def
	}
	v, err := serviceValue(lv, width)
	if err != nil {
		f.Errorf(name, "%s", err)
	}
	return v
}

// Number reads a finite number field.
func (f *Fields) Number(name string, def float64) float64 {
	lv := f.Get(name)
	if lv == lua.LNil {
		return def
	}
	n, ok := lv.(lua.LNumber)
	if !ok {
		f.Errorf(name, "expected a number, got %s", TypeName(lv))
	}
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		f.Errorf(name, "%s is not a finite number", FormatNumber(float64(n)))
	}
	return float64(n)
}

// Strings reads an array of strings ({"apic", "pmu"}).
func (f *Fields) Strings(name string, def []string) []string {
	lv := f.Get(name)
	if lv == lua.LNil {
		return def
	}
	t, ok := lv.(*lua.LTable)
	if !ok {
		f.Errorf(name, "expected an array of strings such as {\"a\", \"b\"}, got %s", TypeName(lv))
	}
	out, err := stringArray(t)
	if err != nil {
		f.Errorf(name, "%s", err)
	}
	return out
}

// stringArray reads t as a proper array of strings.
func stringArray(t *lua.LTable) ([]string, error) {
	n := t.Len()
	count := 0
	bad := EachPair(t, func(k, v lua.LValue) error {
		count++
		kn, ok := k.(lua.LNumber)
		if !ok || float64(kn) < 1 || float64(kn) > float64(n) || float64(kn) != float64(int(kn)) {
			return fmt.Errorf("expected an array of strings, found the key %s", lua.LVAsString(k))
		}
		if _, ok := v.(lua.LString); !ok {
			return fmt.Errorf("element [%d] is %s, expected a string", int(kn), TypeName(v))
		}
		return nil
	})
	if bad != nil {
		return nil, bad
	}
	if count != n {
		return nil, fmt.Errorf("expected an array of strings without holes")
	}
	out := make([]string, n)
	for i := 1; i <= n; i++ {
		out[i-1] = string(t.RawGetInt(i).(lua.LString))
	}
	return out, nil
}

func max0(i int) int {
	if i < 0 {
		return 0
	}
	return i
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func firstOr(list []string, def string) string {
	if len(list) > 0 {
		return list[0]
	}
	return def
}
