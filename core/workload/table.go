package workload

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/proflab/proflab/core/suggest"
)

// The table form of a workload is the TOML form's keys in a tree of plain
// Go values: what a Lua scenario writes in m:run{ workload = { ... } },
// once the Lua runtime has converted its table. A field's keys in a table
// are declared by its struct tag `lua:"..."` in spec.go, next to its TOML
// key: the TOML key, and for a list of tables also its plural
// (`lua:"thread,threads"`), which is how Lua users name lists. Nothing is
// guessed: a field without a lua tag is not in the table form, and a test
// requires one on every field TOML has.

// DecodeTable decodes a workload from its table form, t. The tree holds:
//
//   - map[string]any, a table with named keys (an empty one is also an
//     empty list);
//   - []any, a list;
//   - string and bool;
//   - float64 (a Lua number), uint64 (a Lua u64), int or int64: a number.
//     An integer field takes an integral number below 2^53 (a float64
//     above that may not be the integer written) or a uint64; an address
//     also takes a string ("0xFFFFF80000001000");
//   - a [ProcessHandle], a process of the machine (p).
//
// It has two forms:
//
//   - the full form, the TOML form's keys: { image = { ... }, process =
//     { { name = "app", functions = { ... }, threads = { ... } } }, ... },
//     where a process table may give its process as proc = p instead of
//     its name;
//   - the minimal form, whose process key is a process of the machine:
//     { process = p, functions = { ... } }, plus the workload's keys
//     (images, kernel, quantum_us, ...) and the process's threads and
//     stacks. Its process is the workload's only one, and must have
//     functions or stacks.
//
// Unknown keys, a field given twice (thread and threads) and values of
// the wrong type are errors, all of them (in the order of the fields,
// then a table's unknown keys), each a [FieldError] whose path uses the
// keys t used ("processes[1].threads[2].cpu"). The workload is
// not yet checked: [Spec.Resolve] does that, and its errors are spelled
// with t's keys too (see [Spec.Field]).
func DecodeTable(t map[string]any) (*Spec, error) {
	d := &tableDecoder{}
	s := &Spec{}
	var sp *spelling
	if p, ok := t["process"].(ProcessHandle); ok {
		sp = d.minimal(t, p, s)
	} else {
		spec := fieldGroup{tableFieldsOf(reflect.TypeFor[Spec]()), reflect.ValueOf(s).Elem(), nil}
		sp = d.fields(t, func(key string, known []string) string {
			if toml, ok := minimalKey(key); ok {
				return notMinimal(key, toml, t["process"])
			}
			return unknownKey(key, known)
		}, spec)
	}
	if err := errors.Join(d.errs...); err != nil {
		return nil, err
	}
	s.spelling = sp
	return s, nil
}

// minimalKey reports whether key is one the minimal form's table takes
// for its process (functions, threads, stacks), and its TOML key.
func minimalKey(key string) (toml string, ok bool) {
	for _, f := range tableFieldsOf(reflect.TypeFor[Process]()) {
		if minimalField(f.toml) && slices.Contains(f.keys, key) {
			return f.toml, true
		}
	}
	return "", false
}

// minimalField reports whether the minimal form's table gives its
// process's field of TOML key toml (its name and proc are p's).
func minimalField(toml string) bool { return toml != "name" && toml != "proc" }

// notMinimal says why key (TOML key toml) cannot be at the top of a
// table whose process is process.
func notMinimal(key, toml string, process any) string {
	if process == nil {
		return fmt.Sprintf("gives a process's %ss, but there is no process: the minimal form is { process = p, %s = { ... } }, p a process of the machine (from m:process{ ... })", toml, key)
	}
	return fmt.Sprintf("gives a process's %ss, but process is %s, not a process of the machine: with a list of processes, each gives its own (process = { { name = \"app\", %s = { ... } } })", toml, kind(process), key)
}

// minimal decodes the minimal form's table t, whose process is p, into s.
func (d *tableDecoder) minimal(t map[string]any, p ProcessHandle, s *Spec) *spelling {
	proc := Process{Name: p.Name(), Proc: p}
	spec := fieldGroup{tableFieldsOf(reflect.TypeFor[Spec]()), reflect.ValueOf(s).Elem(), func(toml string) bool { return toml != "process" }}
	process := fieldGroup{tableFieldsOf(reflect.TypeFor[Process]()), reflect.ValueOf(&proc).Elem(), minimalField}
	rest := maps.Clone(t)
	delete(rest, "process")
	sp := d.fields(rest, func(key string, known []string) string {
		if key == "processes" {
			return "the minimal form (process = p) has one process; for several, give processes = { { proc = p, functions = { ... } }, ... } and no process"
		}
		return unknownKey(key, append(known, "process"))
	}, spec, process)
	if len(proc.Functions) == 0 && len(proc.Stacks) == 0 {
		d.failAt(functionsKey(t), "must list at least one function (the minimal form's process runs them)")
	}
	s.Processes = []Process{proc}
	if sp == nil {
		sp = &spelling{}
	}
	sp.minimal = true
	if functionsKey(t) == "functions" && sp.find("function") == nil {
		// the minimal form's own key for its functions, said in
		// messages even where the table gives none
		sp = sp.spell("function", "functions", nil)
	}
	return sp
}

// functionsKey is the key of the minimal form's functions: "functions",
// unless t says "function".
func functionsKey(t map[string]any) string {
	if _, ok := t["function"]; ok {
		return "function"
	}
	return "functions"
}

// tableDecoder collects the errors of one decoding.
type tableDecoder struct {
	errs []error
	// at is the place of the value being decoded, from the top table:
	// keys and list indexes. It becomes a path
	// ("processes[1].threads[2].cpu") only for a message: a generated
	// table has thousands of functions, and most decode without one.
	at []step
}

// step is a key of a table, or the index-th element of a list (key "").
type step struct {
	key   string
	index int // 1-based
}

// fail records an error about the value being decoded.
func (d *tableDecoder) fail(format string, args ...any) {
	d.errs = append(d.errs, &FieldError{Field: d.path(), Msg: fmt.Sprintf(format, args...)})
}

// failAt records an error about key of the table being decoded.
func (d *tableDecoder) failAt(key, format string, args ...any) {
	d.at = append(d.at, step{key: key})
	d.fail(format, args...)
	d.at = d.at[:len(d.at)-1]
}

// path is the place of the value being decoded.
func (d *tableDecoder) path() string {
	var b strings.Builder
	for _, s := range d.at {
		switch {
		case s.key == "":
			fmt.Fprintf(&b, "[%d]", s.index)
		case b.Len() > 0:
			b.WriteString("." + s.key)
		default:
			b.WriteString(s.key)
		}
	}
	return b.String()
}

// tableField is a struct field of the table form.
type tableField struct {
	index int
	toml  string   // its TOML key, which Resolve's errors name
	keys  []string // its keys in a table (its lua tag)
}

var tableFieldsCache sync.Map // reflect.Type → []tableField

// tableFieldsOf is struct type t's fields in the table form, in order:
// those with a lua tag.
func tableFieldsOf(t reflect.Type) []tableField {
	if c, ok := tableFieldsCache.Load(t); ok {
		return c.([]tableField)
	}
	var tf []tableField
	for i := range t.NumField() {
		f := t.Field(i)
		lua, ok := f.Tag.Lookup("lua")
		if !ok {
			continue
		}
		toml, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		keys := strings.Split(lua, ",")
		if toml == "-" || toml == "" {
			toml = keys[0]
		}
		tf = append(tf, tableField{index: i, toml: toml, keys: keys})
	}
	tableFieldsCache.Store(t, tf)
	return tf
}

// fieldGroup is a struct a table's keys go to: its fields, the struct,
// and which of its fields (by TOML key) the table gives (nil: all).
type fieldGroup struct {
	fields []tableField
	dst    reflect.Value
	keep   func(toml string) bool
}

// fields decodes table m into the groups' fields, in field order,
// and returns m's spelling. unknown says what is wrong with a key no
// group has, given the keys they have.
func (d *tableDecoder) fields(m map[string]any, unknown func(key string, known []string) string, groups ...fieldGroup) *spelling {
	var sp *spelling
	found := 0
	for _, g := range groups {
		for _, f := range g.fields {
			if g.keep != nil && !g.keep(f.toml) {
				continue
			}
			key, v := "", any(nil)
			for _, k := range f.keys {
				x, ok := m[k]
				switch {
				case !ok:
					continue
				case key != "":
					d.failAt(k, "and %s are the same field: give one of them", key)
				default:
					key, v = k, x
				}
				found++
			}
			if key != "" {
				d.at = append(d.at, step{key: key})
				sp = sp.spell(f.toml, key, d.value(v, g.dst.Field(f.index)))
				d.at = d.at[:len(d.at)-1]
			}
		}
	}
	if found < len(m) {
		var known []string
		for _, g := range groups {
			for _, f := range g.fields {
				if g.keep == nil || g.keep(f.toml) {
					known = append(known, f.keys...)
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(known, k) {
				d.failAt(k, "%s", unknown(k, known))
			}
		}
	}
	return sp
}

// unknownKey says that key is none of known, with the one meant.
func unknownKey(key string, known []string) string {
	known = slices.Sorted(slices.Values(known))
	if s := suggest.Closest(key, known); s != "" {
		return fmt.Sprintf("unknown key; did you mean %q?", s)
	}
	return "unknown key; the keys here are " + strings.Join(known, ", ")
}

var (
	addressType = reflect.TypeFor[Address]()
	handleType  = reflect.TypeFor[ProcessHandle]()
)

// value stores v into dst, and returns the spelling of the tables
// v holds (nil where they spell as TOML).
func (d *tableDecoder) value(v any, dst reflect.Value) *spelling {
	switch dst.Type() {
	case addressType:
		d.address(v, dst)
		return nil
	case handleType:
		p, ok := v.(ProcessHandle)
		if !ok {
			d.fail("must be a process of the machine (from m:process{ ... }), got %s", kind(v))
			return nil
		}
		dst.Set(reflect.ValueOf(p))
		return nil
	}
	switch dst.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			d.fail("must be a table with named keys, got %s", kind(v))
			return nil
		}
		return d.fields(m, unknownKey, fieldGroup{tableFieldsOf(dst.Type()), dst, nil})
	case reflect.Slice:
		return d.list(v, dst)
	}
	d.scalar(v, dst)
	return nil
}

// list decodes a list (an empty table is an empty list).
func (d *tableDecoder) list(v any, dst reflect.Value) *spelling {
	arr, ok := v.([]any)
	if !ok {
		if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
			return nil
		}
		d.fail("must be a list, got %s", kind(v))
		return nil
	}
	if len(arr) == 0 {
		return nil
	}
	out := reflect.MakeSlice(dst.Type(), len(arr), len(arr))
	var sp *spelling
	for i, e := range arr {
		d.at = append(d.at, step{index: i + 1})
		el := d.value(e, out.Index(i))
		d.at = d.at[:len(d.at)-1]
		if el != nil {
			if sp == nil {
				sp = &spelling{elems: make([]*spelling, len(arr))}
			}
			sp.elems[i] = el
		}
	}
	dst.Set(out)
	return sp
}

// scalar decodes a string, a boolean or a number.
func (d *tableDecoder) scalar(v any, dst reflect.Value) {
	switch dst.Kind() {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			d.fail("must be a string, got %s", kind(v))
			return
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			d.fail("must be true or false, got %s", kind(v))
			return
		}
		dst.SetBool(b)
	case reflect.Float64:
		f, ok := number(v)
		if !ok {
			d.fail("must be a number, got %s", kind(v))
			return
		}
		dst.SetFloat(f)
	case reflect.Uint64:
		if u, ok := d.unsigned(v, false); ok {
			dst.SetUint(u)
		}
	case reflect.Int:
		if i, ok := d.integer(v); ok {
			dst.SetInt(i)
		}
	default:
		d.fail("proflab bug: the table form cannot decode a %s", dst.Type())
	}
}

// address decodes an address: a number, or a string ("0x…").
func (d *tableDecoder) address(v any, dst reflect.Value) {
	if s, ok := v.(string); ok {
		var a Address
		if err := a.UnmarshalText([]byte(s)); err != nil {
			d.fail("%v", err)
			return
		}
		dst.SetUint(uint64(a))
		return
	}
	if u, ok := d.unsigned(v, true); ok {
		dst.SetUint(u)
	}
}

// exactLimit is 2^53: a float64 of that magnitude or more may not be the
// integer written.
const exactLimit = 1 << 53

// unsigned decodes an integer >= 0; address says whether a string is
// accepted too (for the advice).
func (d *tableDecoder) unsigned(v any, address bool) (uint64, bool) {
	switch x := v.(type) {
	case uint64:
		return x, true
	case int:
		if x >= 0 {
			return uint64(x), true
		}
	case int64:
		if x >= 0 {
			return uint64(x), true
		}
	case float64:
		switch {
		case x >= 0 && x == math.Trunc(x) && x < exactLimit:
			return uint64(x), true
		case x >= exactLimit && !math.IsInf(x, 1):
			advice := `lab.u64("0x…")`
			if address {
				advice = `a string ("0x…") or lab.u64("0x…")`
			}
			d.fail("%v is 2^53 or more, beyond the integers a Lua number holds exactly: write it as %s", x, advice)
			return 0, false
		}
	default:
		d.fail("must be a number, got %s", kind(v))
		return 0, false
	}
	d.fail("must be an integer >= 0, got %v", v)
	return 0, false
}

// integer decodes an integer of either sign (a processor number, which
// Resolve checks as it does TOML's).
func (d *tableDecoder) integer(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < exactLimit {
			return int64(x), true
		}
	default:
		d.fail("must be a number, got %s", kind(v))
		return 0, false
	}
	d.fail("must be an integer, got %v", v)
	return 0, false
}

// number is v as a float64, if it is a number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case uint64:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// kind names v's type for messages.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case map[string]any:
		return "a table"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, uint64, int, int64:
		return "a number"
	case ProcessHandle:
		return "a process"
	}
	return fmt.Sprintf("a %T", v)
}
