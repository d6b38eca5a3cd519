package luart

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
)

// workloadFromTable builds a workload from a table of plain Go values, as
// workloadValue converts a workload table: maps with string keys
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
// Unknown keys and wrong types are errors naming the field. minimal
// reports the minimal form, whose process is the workload's first: its
// errors name fields as that form has them (see minimalFieldErrors).
func workloadFromTable(t map[string]any) (s *workload.Spec, minimal bool, err error) {
	d := &tdec{}
	s = &workload.Spec{}
	top := map[string]any{}
	for k, v := range t {
		top[k] = v
	}
	var minimalProc *kernel.Process
	var minimalFns, minimalThreads, minimalStacks any
	if p, ok := top["process"].(*kernel.Process); ok {
		minimalProc = p
		delete(top, "process")
		minimalFns = pop(top, "functions", "function")
		minimalThreads = pop(top, "threads", "thread")
		minimalStacks = pop(top, "stacks", "stack")
		minimal = true
	} else if _, ok := top["functions"]; ok {
		return nil, false, &workload.FieldError{Field: "process", Msg: "must be a process (from m:process{...})"}
	}
	d.decode("", top, reflect.ValueOf(s).Elem())
	if minimal {
		p := workload.Process{Proc: minimalProc, Name: minimalProc.Name()}
		if minimalFns != nil {
			d.decode("functions", minimalFns, reflect.ValueOf(&p.Functions).Elem())
		}
		if minimalThreads != nil {
			d.decode("threads", minimalThreads, reflect.ValueOf(&p.Threads).Elem())
		}
		if minimalStacks != nil {
			d.decode("stacks", minimalStacks, reflect.ValueOf(&p.Stacks).Elem())
		}
		s.Processes = append([]workload.Process{p}, s.Processes...)
	}
	if err := errors.Join(d.errs...); err != nil {
		return nil, false, err
	}
	return s, minimal, nil
}

// checkMinimal is what the minimal form requires beyond the workload's
// own checks: at least one function. Its error goes with the rest of
// the workload's (resolved for target), where Resolve would have checked
// it, after the images'.
func checkMinimal(s *workload.Spec, target workload.Target) error {
	if len(s.Processes) == 0 || len(s.Processes[0].Functions) > 0 || len(s.Processes[0].Stacks) > 0 {
		return nil
	}
	none := &workload.FieldError{Field: "functions", Msg: "must list at least one function"}
	_, err := s.Resolve(target)
	var errs []error
	placed := false
	for _, e := range minimalFieldErrors(err) {
		var fe *workload.FieldError
		if errors.As(e, &fe) && fe.Field == "" {
			// the overlap check, which Resolve runs only on an otherwise
			// valid workload: the missing functions hide it
			continue
		}
		if !placed && !(errors.As(e, &fe) && strings.HasPrefix(fe.Field, "image[")) {
			errs, placed = append(errs, none), true
		}
		errs = append(errs, e)
	}
	if !placed {
		errs = append(errs, none)
	}
	return errors.Join(errs...)
}

// minimalFieldErrors splits a workload error of the minimal form into its
// errors, with their fields named as that form has them: the process's
// functions are "functions[i]", its threads "thread[i]", not
// "process[1].function[i]" and "process[1].thread[i]".
func minimalFieldErrors(err error) []error {
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
		fe, ok := e.(*workload.FieldError)
		if !ok {
			continue
		}
		f := fe.Field
		switch {
		case strings.HasPrefix(f, "process[1].function["):
			f = "functions[" + strings.TrimPrefix(f, "process[1].function[")
		case strings.HasPrefix(f, "process[1]."):
			f = strings.TrimPrefix(f, "process[1].")
		case f == "process[1]":
			f = ""
		}
		out[i] = &workload.FieldError{Field: f, Msg: fe.Msg}
	}
	return out
}

// minimalError is minimalFieldErrors joined again (nil for nil).
func minimalError(err error) error {
	if err == nil {
		return nil
	}
	var fe *workload.FieldError
	if _, joined := err.(interface{ Unwrap() []error }); !joined && !errors.As(err, &fe) {
		return err
	}
	return errors.Join(minimalFieldErrors(err)...)
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
	d.errs = append(d.errs, &workload.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

var (
	addressType = reflect.TypeOf(workload.Address(0))
	procType    = reflect.TypeOf((*workload.ProcessHandle)(nil)).Elem()
)

// decode stores v into dst (a settable value) at path field.
func (d *tdec) decode(field string, v any, dst reflect.Value) {
	switch {
	case dst.Type() == procType:
		p, ok := v.(*kernel.Process)
		if !ok {
			d.fail(field, "must be a process (from m:process{...}), got %s", kind(v))
			return
		}
		dst.Set(reflect.ValueOf(p))
		return
	case dst.Type() == addressType:
		d.decodeAddress(field, v, dst)
		return
	}
	switch dst.Kind() {
	case reflect.Struct:
		d.decodeStruct(field, v, dst)
	case reflect.Slice:
		d.decodeSlice(field, v, dst)
	default:
		d.decodeScalar(field, v, dst)
	}
}

// decodeAddress decodes an address: a "0x…" string or a number.
func (d *tdec) decodeAddress(field string, v any, dst reflect.Value) {
	if s, ok := v.(string); ok {
		var a workload.Address
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
}

// decodeStruct decodes a table into a struct by its TOML keys (a list
// also under its plural, as Lua users write lists), in key order.
func (d *tdec) decodeStruct(field string, v any, dst reflect.Value) {
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
			d.fail(joinField(field, k), "unknown key")
			continue
		}
		d.decode(joinField(field, k), m[k], dst.Field(i))
	}
}

// decodeSlice decodes a list (an empty Lua table is an empty list).
func (d *tdec) decodeSlice(field string, v any, dst reflect.Value) {
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
}

// decodeScalar decodes a string, boolean or number.
func (d *tdec) decodeScalar(field string, v any, dst reflect.Value) {
	switch dst.Kind() {
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

// joinField is the path of field inside prefix ("process[1].name").
func joinField(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}
