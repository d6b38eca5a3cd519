package workload

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/proflab/proflab/kernel"
)

// FromTable builds a workload from a table of plain Go values, as the Lua
// bindings convert a workload table: maps with string keys
// (map[string]any), arrays ([]any), float64, uint64, int, string, bool, and
// *kernel.Process for processes. Keys are the TOML keys; plurals are
// accepted where Lua users write lists ("functions", "threads",
// "hotspots", "images"). Two forms:
//
//   - the minimal form of lua-api.md: { process = p, functions = {...} }
//     plus any top-level option (instruction_bytes, quantum_us,
//     segment_instructions, threads = {...} for the process, kernel = {...},
//     image = {...});
//   - the full form: process = { { name = "app" or proc = p, functions =
//     {...}, threads = {...} }, ... }.
//
// Unknown keys and wrong types are errors naming the field.
func FromTable(t map[string]any) (*Spec, error) {
	d := &tdec{}
	s := &Spec{}
	top := map[string]any{}
	for k, v := range t {
		top[k] = v
	}
	var minimalProc *kernel.Process
	var minimalFns, minimalThreads any
	if p, ok := top["process"].(*kernel.Process); ok {
		minimalProc = p
		delete(top, "process")
		minimalFns = pop(top, "functions", "function")
		minimalThreads = pop(top, "threads", "thread")
		s.minimal = true
	} else if _, ok := top["functions"]; ok {
		return nil, &FieldError{Field: "process", Msg: "must be a process (from m:process{...})"}
	}
	d.decode("", top, reflect.ValueOf(s).Elem())
	if s.minimal {
		p := Process{Proc: minimalProc, Name: minimalProc.Name()}
		if minimalFns != nil {
			d.decode("functions", minimalFns, reflect.ValueOf(&p.Functions).Elem())
		}
		if minimalThreads != nil {
			d.decode("threads", minimalThreads, reflect.ValueOf(&p.Threads).Elem())
		}
		s.Processes = append([]Process{p}, s.Processes...)
	}
	if err := errors.Join(d.errs...); err != nil {
		return nil, err
	}
	return s, nil
}

func pop(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			delete(m, k)
			return v
		}
	}
	return nil
}

type tdec struct{ errs []error }

func (d *tdec) fail(field, format string, args ...any) {
	d.errs = append(d.errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

var (
	addressType = reflect.TypeOf(Address(0))
	procPtrType = reflect.TypeOf((*kernel.Process)(nil))
)

// decode stores v into dst (a settable value) at path field.
func (d *tdec) decode(field string, v any, dst reflect.Value) {
	switch {
	case dst.Type() == procPtrType:
		p, ok := v.(*kernel.Process)
		if !ok {
			d.fail(field, "must be a process (from m:process{...}), got %s", kind(v))
			return
		}
		dst.Set(reflect.ValueOf(p))
		return
	case dst.Type() == addressType:
		if s, ok := v.(string); ok {
			var a Address
			if err := a.UnmarshalText([]byte(s)); err != nil {
				d.fail(field, "%v", err)
				return
			}
			dst.SetUint(uint64(a))
			return
		}
		if u, ok := d.unsigned(field, v); ok {
			dst.SetUint(u)
		}
		return
	}
	switch dst.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			d.fail(field, "must be a table, got %s", kind(v))
			return
		}
		fields := map[string]int{}
		t := dst.Type()
		for i := range t.NumField() {
			tag := strings.Split(t.Field(i).Tag.Get("toml"), ",")[0]
			if tag == "" || tag == "-" {
				if t.Field(i).Name == "Proc" {
					fields["proc"] = i
				}
				continue
			}
			fields[tag] = i
			if dst.Field(i).Kind() == reflect.Slice && !strings.HasSuffix(tag, "s") && tag != "run" && tag != "isr" && tag != "dpc" {
				fields[tag+"s"] = i // Lua users write lists as plurals
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			i, ok := fields[k]
			if !ok {
				d.fail(join(field, k), "unknown key")
				continue
			}
			d.decode(join(field, k), m[k], dst.Field(i))
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
				return // an empty Lua table
			}
			d.fail(field, "must be a list, got %s", kind(v))
			return
		}
		out := reflect.MakeSlice(dst.Type(), len(arr), len(arr))
		for i, e := range arr {
			d.decode(fmt.Sprintf("%s[%d]", field, i+1), e, out.Index(i))
		}
		dst.Set(out)
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			d.fail(field, "must be a string, got %s", kind(v))
			return
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			d.fail(field, "must be a boolean, got %s", kind(v))
			return
		}
		dst.SetBool(b)
	case reflect.Float64:
		switch x := v.(type) {
		case float64:
			dst.SetFloat(x)
		case uint64:
			dst.SetFloat(float64(x))
		case int:
			dst.SetFloat(float64(x))
		default:
			d.fail(field, "must be a number, got %s", kind(v))
		}
	case reflect.Uint64:
		if u, ok := d.unsigned(field, v); ok {
			dst.SetUint(u)
		}
	case reflect.Int:
		if u, ok := d.unsigned(field, v); ok {
			if u > math.MaxInt32 {
				d.fail(field, "%d is too large", u)
				return
			}
			dst.SetInt(int64(u))
		}
	default:
		d.fail(field, "cannot be set from a table")
	}
}

func (d *tdec) unsigned(field string, v any) (uint64, bool) {
	switch x := v.(type) {
	case uint64:
		return x, true
	case int:
		if x >= 0 {
			return uint64(x), true
		}
	case float64:
		if x >= 0 && x == math.Trunc(x) && x < 1<<53 {
			return uint64(x), true
		}
		if x >= 0 && x == math.Trunc(x) {
			d.fail(field, "%v is above 2^53: use lab.u64(\"0x…\")", x)
			return 0, false
		}
	default:
		d.fail(field, "must be a number, got %s", kind(v))
		return 0, false
	}
	d.fail(field, "must be a non-negative integer, got %v", v)
	return 0, false
}

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
	case float64, uint64, int:
		return "a number"
	case *kernel.Process:
		return "a process"
	}
	return fmt.Sprintf("%T", v)
}
