package luavm

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/suggest"
)

// The Lua library's strictness: a library function (scripts/) checks its
// table of options and its arguments with the same rule, and in the same
// words, as a binding's Fields and Args do: an unknown key is an error
// naming it, the function and the nearest key (core/suggest's rule), and
// a value of the wrong type is an error naming the function and the
// field or argument. The proflab module offers the two checks as
// lab.options and lab.arguments; scenarios' own helper modules may use
// them too. Errors are raised at the scenario's line (CallerWhere), not at
// the library's.

// A kind is one type a spec names ("integer", "string|false").
type kind struct {
	name   string
	desc   string                 // what the kind accepts, for messages: "a string"
	accept func(lua.LValue) bool  // whether lv is of the kind
	why    func(lua.LValue) error // why lv is not, in the kind's own words; nil: "expected DESC, got TYPE"
}

// kinds are the types a spec may name, in the order messages list them.
var kinds = []kind{
	{name: "any", desc: "any value", accept: func(lua.LValue) bool { return true }},
	{name: "nil", desc: "nil", accept: func(lv lua.LValue) bool { return lv == lua.LNil }},
	{name: "boolean", desc: "true or false", accept: func(lv lua.LValue) bool { return lv.Type() == lua.LTBool }},
	{name: "false", desc: "false", accept: func(lv lua.LValue) bool { return lv == lua.LFalse }},
	{name: "number", desc: "a number", accept: func(lv lua.LValue) bool { return finiteNumber(lv) == nil }, why: finiteNumber},
	{name: "integer", desc: "a whole number or a u64", accept: isInteger, why: func(lv lua.LValue) error {
		_, err := serviceValue(lv, 8)
		return err
	}},
	{name: "u64", desc: "a u64", accept: func(lv lua.LValue) bool { _, ok := AsU64(lv); return ok }},
	{name: "string", desc: "a string", accept: func(lv lua.LValue) bool { return lv.Type() == lua.LTString }},
	{name: "table", desc: "a table", accept: func(lv lua.LValue) bool { return lv.Type() == lua.LTTable }},
	{name: "function", desc: "a function", accept: func(lv lua.LValue) bool { return lv.Type() == lua.LTFunction }},
	{name: "object", desc: "a proflab object (a machine, process, thread…)", accept: func(lv lua.LValue) bool {
		_, isU64 := AsU64(lv)
		return lv.Type() == lua.LTUserData && !isU64
	}},
}

// isInteger reports whether lv is what a service parameter takes
// (serviceValue): an exact whole number, or a u64.
func isInteger(lv lua.LValue) bool {
	if n, ok := lv.(lua.LNumber); ok {
		f := float64(n)
		return f == math.Trunc(f) && f < exactLimit && f > -exactLimit
	}
	_, ok := AsU64(lv)
	return ok
}

// finiteNumber accepts a Lua number that is neither NaN nor infinite.
func finiteNumber(lv lua.LValue) error {
	n, ok := lv.(lua.LNumber)
	if !ok {
		return fmt.Errorf("expected a number, got %s", TypeName(lv))
	}
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return fmt.Errorf("%s is not a finite number", FormatNumber(float64(n)))
	}
	return nil
}

// kindNames are the kinds' names, for the error about a spec.
func kindNames() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.name
	}
	return out
}

// kindCache holds the kinds of every type text parsed so far ("integer|false"),
// and argCache every argument entry ("bucket:integer"): a library
// function checks its options on every call, and the texts are few. Each
// keeps at most maxCached texts (a scenario making texts on the fly
// parses them every time).
const maxCached = 4096

var (
	cacheMu   sync.RWMutex
	kindCache = map[string][]kind{}
	argCache  = map[string]argEntry{}
)

// An argEntry is one element of lab.arguments' spec, parsed.
type argEntry struct {
	name  string
	kinds []kind
}

// parseKinds reads a spec's type: kind names separated by "|".
func parseKinds(text string) ([]kind, error) {
	cacheMu.RLock()
	ks, ok := kindCache[text]
	cacheMu.RUnlock()
	if ok {
		return ks, nil
	}
	var out []kind
	for _, name := range strings.Split(text, "|") {
		i := slices.IndexFunc(kinds, func(k kind) bool { return k.name == name })
		if i < 0 {
			msg := fmt.Sprintf("unknown type %q", name)
			if s := suggest.Closest(name, kindNames()); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, fmt.Errorf("%s; the types are %s, joined by | (\"integer|false\")", msg, strings.Join(kindNames(), ", "))
		}
		out = append(out, kinds[i])
	}
	cacheMu.Lock()
	if len(kindCache) < maxCached {
		kindCache[text] = out
	}
	cacheMu.Unlock()
	return out, nil
}

// parseArg reads one element of lab.arguments' spec, "name:type".
func parseArg(entry string) (argEntry, error) {
	cacheMu.RLock()
	e, ok := argCache[entry]
	cacheMu.RUnlock()
	if ok {
		return e, nil
	}
	name, types, found := strings.Cut(entry, ":")
	if !found || name == "" {
		return argEntry{}, fmt.Errorf("expected \"name:type\" (such as \"bucket:integer\")")
	}
	ks, err := parseKinds(types)
	if err != nil {
		return argEntry{}, err
	}
	e = argEntry{name: name, kinds: ks}
	cacheMu.Lock()
	if len(argCache) < maxCached {
		argCache[entry] = e
	}
	cacheMu.Unlock()
	return e, nil
}

// checkKinds returns nil when lv is of one of ks, else what is wrong: the
// kind's own words for a single kind ("0.5 is not an integer"), the list
// of what is accepted otherwise.
func checkKinds(lv lua.LValue, ks []kind) error {
	for _, k := range ks {
		if k.accept(lv) {
			return nil
		}
	}
	if len(ks) == 1 && ks[0].why != nil {
		return ks[0].why(lv)
	}
	descs := make([]string, len(ks))
	for i, k := range ks {
		descs[i] = k.desc
	}
	if len(ks) == 1 {
		return fmt.Errorf("expected %s, got %s", descs[0], TypeName(lv))
	}
	return fmt.Errorf("expected %s, or %s, got %s", strings.Join(descs[:len(descs)-1], ", "), descs[len(descs)-1], TypeName(lv))
}

// raiseAtCaller raises msg as an error at the scenario's line: the
// nearest Lua frame that is not a library module (CallerWhere), so that a
// library helper's check points at the call the user wrote.
func (s *State) raiseAtCaller(L *lua.LState, msg string) {
	if where := s.CallerWhere(L); where != "?" {
		msg = where + ": " + msg
	}
	L.Error(lua.LString(msg), 0)
}

// OptionsFunc is lab.options(fn, opts, spec) → opts, the check of a
// library function's table of options: opts (nil counts as an empty
// table, which is returned) must be a table whose keys are spec's, each
// value of the type spec gives it (spec = { check = "boolean", base =
// "integer", process = "integer|false" }; the types are kinds' names).
// An unknown key is refused as Fields refuses it (`fn{...}: unknown field
// "sorce" (did you mean "source"?); its fields are …`), a value of the
// wrong type with `fn{...}: field "bucket": expected …, got string`, at
// the scenario's line. name is what the function's own errors call it
// ("lab.options"): they are the calling code's mistakes (a bad spec).
//
// A call that passes does little: the types' texts are parsed once
// (kindCache), and the sorted key list the messages need is built only
// for an error.
func (s *State) OptionsFunc(name string) lua.LGFunction {
	return func(L *lua.LState) int {
		a := NewArgs(L, name)
		fn := a.String(1, "fn")
		spec := a.Table(3, "spec")
		if bad := checkSpec(spec); bad != "" {
			a.Errorf(3, "spec", "%s", bad)
		}
		var t *lua.LTable
		switch v := a.Get(2).(type) {
		case *lua.LTable:
			t = v
		case *lua.LNilType:
			L.Push(L.NewTable())
			return 1
		default:
			s.raiseAtCaller(L, fmt.Sprintf("%s: expected a table of options ({ %s = … }), got %s", fn, firstOr(specKeys(spec), "name"), TypeName(v)))
		}
		if !optionsOK(t, spec) {
			s.raiseAtCaller(L, optionsProblem(fn, t, spec))
		}
		L.Push(t)
		return 1
	}
}

// checkSpec returns what is wrong with lab.options' spec, or "".
func checkSpec(spec *lua.LTable) string {
	err := EachPair(spec, func(k, v lua.LValue) error {
		ks, kok := k.(lua.LString)
		vs, vok := v.(lua.LString)
		if !kok || !vok {
			return fmt.Errorf("expected { name = \"type\", … } (such as { check = \"boolean\" }), found [%s] = %s", lua.LVAsString(k), TypeName(v))
		}
		if _, err := parseKinds(string(vs)); err != nil {
			return fmt.Errorf("field %q: %s", string(ks), err)
		}
		return nil
	})
	if err != nil {
		return err.Error()
	}
	return ""
}

// specKeys are the options spec names, sorted (ForEach's order is Go's
// map order).
func specKeys(spec *lua.LTable) []string {
	var keys []string
	spec.ForEach(func(k, _ lua.LValue) { keys = append(keys, lua.LVAsString(k)) })
	slices.Sort(keys)
	return keys
}

// optionsOK reports whether every key of t is spec's and of its type
// (checkSpec has vetted spec).
func optionsOK(t, spec *lua.LTable) bool {
	Materialize(t)
	ok := true
	t.ForEach(func(k, v lua.LValue) {
		if !ok {
			return
		}
		ks, isString := k.(lua.LString)
		if !isString {
			ok = false
			return
		}
		types, known := spec.RawGetString(string(ks)).(lua.LString)
		if !known {
			ok = false
			return
		}
		ksOf, _ := parseKinds(string(types))
		ok = checkKinds(v, ksOf) == nil
	})
	return ok
}

// optionsProblem is the message for options t that optionsOK refused:
// the keys' problem (keysProblem), else the first option of the wrong
// type in sorted order, so that the error is the same every run.
func optionsProblem(fn string, t, spec *lua.LTable) string {
	allowed := specKeys(spec)
	if problem := keysProblem(fn, "", t, allowed); problem != "" {
		return problem
	}
	for _, key := range allowed {
		lv := t.RawGetString(key)
		if lv == lua.LNil {
			continue
		}
		ks, _ := parseKinds(lua.LVAsString(spec.RawGetString(key)))
		if err := checkKinds(lv, ks); err != nil {
			return fmt.Sprintf("%s{...}: field %q: %s", fn, key, err)
		}
	}
	return fmt.Sprintf("%s{...}: proflab bug: the options were refused without a reason", fn)
}

// ArgumentsFunc is lab.arguments(fn, spec, ...), the check of a library
// function's arguments: spec names each argument and its type, in order
// ({ "counts:table", "bucket:integer", "what:string|nil" }; nil only
// where the spec says so), and the values follow. A value of the wrong
// type is refused as Args refuses it (`fn: argument #3 (bucket): …`), at
// the scenario's line. name is what the function's own errors call it
// ("lab.arguments").
func (s *State) ArgumentsFunc(name string) lua.LGFunction {
	return func(L *lua.LState) int {
		a := NewArgs(L, name)
		fn := a.String(1, "fn")
		spec := a.Table(2, "spec")
		n := spec.Len()
		for i := 1; i <= n; i++ {
			entry, ok := spec.RawGetInt(i).(lua.LString)
			if !ok {
				a.Errorf(2, "spec", "element [%d] is %s; expected \"name:type\" (such as \"bucket:integer\")", i, TypeName(spec.RawGetInt(i)))
			}
			arg, err := parseArg(string(entry))
			if err != nil {
				a.Errorf(2, "spec", "element [%d] (%s): %s", i, string(entry), err)
			}
			if err := checkKinds(L.Get(2+i), arg.kinds); err != nil {
				s.raiseAtCaller(L, fmt.Sprintf("%s: argument #%d (%s): %s", fn, i, arg.name, err))
			}
		}
		return 0
	}
}

// SuggestFunc is lab.suggest(name, names) → the name of names nearest to
// name, or nil: core/suggest's rule (case ignored, at most a third of
// name's length in edits, at least 2), the "did you mean" of every
// binding, for a library that words its own messages (the tools'
// command lines). name is what the function's own errors call it.
func SuggestFunc(name string) lua.LGFunction {
	return func(L *lua.LState) int {
		a := NewArgs(L, name)
		typed := a.String(1, "name")
		t := a.Table(2, "names")
		names, err := stringArray(t)
		if err != nil {
			a.Errorf(2, "names", "%s", err)
		}
		if s := suggest.Closest(typed, names); s != "" {
			L.Push(lua.LString(s))
		} else {
			L.Push(lua.LNil)
		}
		return 1
	}
}
