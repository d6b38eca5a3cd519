package workload

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden .err files of testdata/table")

// tableTarget is an x64 machine (MmUserProbeAddress 0x7FFFFFEFFFF).
var tableTarget = Target{UserProbeAddress: 0x7FFFFFEFFFF}

// readTable reads a table form written as JSON: objects are tables,
// arrays lists, numbers float64, as the Lua runtime gives them.
func readTable(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// TestTablePairs holds every pair of testdata/table, a TOML file and its
// table form (NAME.toml, NAME.json), to the same Spec. A broken pair
// (one whose workload Resolve refuses) gives the same errors in each
// spelling, TOML's and the table's, which NAME.err holds (-update
// rewrites it).
func TestTablePairs(t *testing.T) {
	files, err := filepath.Glob("testdata/table/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no pairs in testdata/table: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".toml")
		t.Run(name, func(t *testing.T) {
			fromTOML, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			fromTable, err := DecodeTable(readTable(t, strings.TrimSuffix(file, ".toml")+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if !sameSpec(fromTOML, fromTable) {
				a, _ := Encode(fromTOML)
				b, _ := Encode(fromTable)
				t.Fatalf("the table form decodes to another workload:\nTOML:\n%s\ntable:\n%s", a, b)
			}
			_, tomlErr := fromTOML.Resolve(tableTarget)
			_, tableErr := fromTable.Resolve(tableTarget)
			checkSpellings(t, fromTable, tomlErr, tableErr)
			golden := strings.TrimSuffix(file, ".toml") + ".err"
			if tomlErr == nil {
				if _, err := os.Stat(golden); err == nil {
					t.Errorf("%s: the pair resolves, but has a golden error file", golden)
				}
				return
			}
			got := "# TOML\n" + tomlErr.Error() + "\n# table\n" + tableErr.Error() + "\n"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("errors differ from %s:\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// sameSpec reports whether a and b are the same workload, however their
// sources spelled it.
func sameSpec(a, b *Spec) bool {
	x, y := *a, *b
	x.spelling, y.spelling = nil, nil
	return reflect.DeepEqual(x, y)
}

// checkSpellings checks that the table's errors are the TOML file's, each
// field spelled by the table's spelling, and that a spelling changes only
// keys, never indexes.
func checkSpellings(t *testing.T, table *Spec, tomlErr, tableErr error) {
	t.Helper()
	a, b := fieldErrors(t, tomlErr), fieldErrors(t, tableErr)
	if len(a) != len(b) {
		t.Fatalf("%d errors from the TOML file, %d from the table:\n%v\n%v", len(a), len(b), tomlErr, tableErr)
	}
	for i := range a {
		if a[i].Msg != b[i].Msg || table.Field(a[i].Field) != b[i].Field {
			t.Errorf("error %d: TOML %q, table %q", i+1, a[i], b[i])
		}
		if indexes(a[i].Field) != indexes(b[i].Field) {
			t.Errorf("error %d: %q and %q differ in their indexes", i+1, a[i].Field, b[i].Field)
		}
	}
}

func fieldErrors(t *testing.T, err error) []*FieldError {
	t.Helper()
	if err == nil {
		return nil
	}
	var out []*FieldError
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *FieldError
		if !errors.As(e, &fe) {
			t.Fatalf("%v is no FieldError", e)
		}
		out = append(out, fe)
	}
	return out
}

// indexes is a field path's indexes, its keys left out.
func indexes(path string) string {
	var b strings.Builder
	for _, r := range path {
		if r >= '0' && r <= '9' || r == '[' || r == ']' || r == '.' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// specTypes are the struct types of a workload's tree, Spec first.
func specTypes() []reflect.Type {
	types := []reflect.Type{reflect.TypeFor[Spec]()}
	for i := 0; i < len(types); i++ {
		for j := range types[i].NumField() {
			ft := types[i].Field(j).Type
			if ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft != reflect.TypeFor[Address]() && !slices.Contains(types, ft) {
				types = append(types, ft)
			}
		}
	}
	return types
}

// TestTableKeysAreDeclared: every field TOML has says its keys in a
// table (its lua tag), the TOML key among them, and no key names two
// fields; only a list of tables has a second key (its plural).
func TestTableKeysAreDeclared(t *testing.T) {
	for _, st := range specTypes() {
		seen := map[string]string{}
		for i := range st.NumField() {
			f := st.Field(i)
			toml, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			lua, ok := f.Tag.Lookup("lua")
			if !f.IsExported() {
				continue
			}
			if !ok {
				t.Errorf("%s.%s has no lua tag: say which keys the table form takes for it (its TOML key %q, and its plural for a list of tables)", st.Name(), f.Name, toml)
				continue
			}
			keys := strings.Split(lua, ",")
			if toml != "-" && !slices.Contains(keys, toml) {
				t.Errorf("%s.%s: the table form's keys %q leave out its TOML key %q", st.Name(), f.Name, lua, toml)
			}
			listOfTables := f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct
			if len(keys) > 1 && !listOfTables {
				t.Errorf("%s.%s: keys %q, but only a list of tables has a plural", st.Name(), f.Name, lua)
			}
			for _, k := range keys {
				if other, dup := seen[k]; dup {
					t.Errorf("%s: key %q names both %s and %s", st.Name(), k, other, f.Name)
				}
				seen[k] = f.Name
			}
		}
	}
}

// TestTablePairsSetEveryField: the every_key pair sets every field of
// the workload (but a process's proc, which only Lua holds: see
// TestDecodeTableMinimal), so the pairs prove each field's keys.
func TestTablePairsSetEveryField(t *testing.T) {
	s, err := DecodeTable(readTable(t, "testdata/table/every_key.json"))
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Struct:
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if f.IsExported() && !v.Field(i).IsZero() {
					set[v.Type().Name()+"."+f.Name] = true
					walk(v.Field(i))
				}
			}
		}
	}
	walk(reflect.ValueOf(*s))
	for _, st := range specTypes() {
		for i := range st.NumField() {
			f := st.Field(i)
			if f.IsExported() && f.Name != "Proc" && !set[st.Name()+"."+f.Name] {
				t.Errorf("no golden pair sets %s.%s: give it in testdata/table/every_key.toml and every_key.json", st.Name(), f.Name)
			}
		}
	}
}

// handle is a process of the machine, as the Lua runtime passes one.
type handle string

func (h handle) Name() string { return string(h) }

func fn(name string, base, size float64) map[string]any {
	return map[string]any{"name": name, "base": base, "size": size, "weight": 1.0}
}

// TestDecodeTableMinimal: the minimal form { process = p, functions =
// {...} } is a workload of one process, p, with the table's functions,
// threads and stacks; its errors name the table's keys, the process being
// the table itself.
func TestDecodeTableMinimal(t *testing.T) {
	p := handle("app")
	s, err := DecodeTable(map[string]any{
		"process":    p,
		"functions":  []any{fn("main", 0x10000, 0x100), fn("work", 0x10100, 0x100)},
		"threads":    []any{map[string]any{"cpu": 1.0}, map[string]any{"busy": 2.0}},
		"quantum_us": 2000.0,
		"kernel":     map[string]any{"interrupt_share": 0.1},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &Spec{QuantumUS: 2000, Kernel: Kernel{InterruptShare: 0.1}, Processes: []Process{{
		Name: "app", Proc: p,
		Functions: []Function{{Name: "main", Base: 0x10000, Size: 0x100, Weight: 1}, {Name: "work", Base: 0x10100, Size: 0x100, Weight: 1}},
		Threads:   []Thread{{CPU: 1}, {Busy: 2}},
	}}}
	if !sameSpec(s, want) {
		t.Errorf("decoded %+v, want %+v", s, want)
	}
	_, err = s.Resolve(tableTarget)
	if err == nil || err.Error() != "threads[2].busy: must be > 0 and at most 1, got 2" {
		t.Errorf("Resolve: %v", err)
	}
	for path, want := range map[string]string{
		"process[1].function[2].size":        "functions[2].size",
		"process[1].thread[1].run[1].weight": "threads[1].run[1].weight",
		"process[1].stack[1].frames[1]":      "stack[1].frames[1]", // no stacks given: TOML's key
		"process[1]":                         "",
		"image[1].function[1].name":          "image[1].function[1].name",
		"kernel.isr[1].function":             "kernel.isr[1].function",
		"quantum_us":                         "quantum_us",
	} {
		if got := s.Field(path); got != want {
			t.Errorf("Field(%q) = %q, want %q", path, got, want)
		}
	}
	// a minimal table saying function spells its functions so
	singular, err := DecodeTable(map[string]any{"process": p, "function": []any{fn("main", 0x10000, 0x100)}})
	if err != nil || singular.Field("process[1].function[1].size") != "function[1].size" {
		t.Errorf("minimal form with function: %v, %q", err, singular.Field("process[1].function[1].size"))
	}
	// the full form's process tables give their process as proc
	full, err := DecodeTable(map[string]any{"processes": []any{map[string]any{"proc": p, "functions": []any{fn("main", 0x10000, 0x100)}}}})
	if err != nil || full.Processes[0].Proc != p || full.Field("process[1].function[1].size") != "processes[1].functions[1].size" {
		t.Errorf("full form with proc: %+v, %v", full, err)
	}
	// a TOML file's workload spells as TOML
	fromTOML := &Spec{}
	if fromTOML.Field("process[1].thread[2].cpu") != "process[1].thread[2].cpu" {
		t.Error("a workload without a table's spelling respells its fields")
	}
}

// TestDecodeTableErrors: what the table form refuses, every problem at
// once, each naming the field with the table's own keys.
func TestDecodeTableErrors(t *testing.T) {
	p := handle("app")
	tests := []struct {
		name  string
		table map[string]any
		want  string
	}{
		{"wrong types", map[string]any{"process": p, "functions": []any{
			map[string]any{"name": 1.0, "base": true, "size": "big", "weight": "x", "caller": 3.0},
		}, "create_processes": "yes", "kernel": []any{}},
			"kernel: must be a table with named keys, got a list\n" +
				"create_processes: must be true or false, got a string\n" +
				"functions[1].name: must be a string, got a number\n" +
				"functions[1].base: must be a number, got a boolean\n" +
				"functions[1].size: must be a number, got a string\n" +
				"functions[1].weight: must be a number, got a string\n" +
				"functions[1].caller: must be a string, got a number"},
		{"integers", map[string]any{"process": p, "functions": []any{
			map[string]any{"name": "f", "base": float64(1 << 60), "size": -1.0, "loop_instructions": 1.5, "offset": "0xZ"},
		}, "threads": []any{map[string]any{"cpu": 0.5, "affinity": float64(1 << 54)}}},
			"functions[1].base: 1.152921504606847e+18 is 2^53 or more, beyond the integers a Lua number holds exactly: write it as a string (\"0x…\") or lab.u64(\"0x…\")\n" +
				"functions[1].offset: address \"0xZ\": want an integer or a string such as \"0xFFFFF80000001000\"\n" +
				"functions[1].size: must be an integer >= 0, got -1\n" +
				"functions[1].loop_instructions: must be an integer >= 0, got 1.5\n" +
				"threads[1].affinity: 1.8014398509481984e+16 is 2^53 or more, beyond the integers a Lua number holds exactly: write it as lab.u64(\"0x…\")\n" +
				"threads[1].cpu: must be an integer, got 0.5"},
		{"unknown keys", map[string]any{"processes": []any{map[string]any{"nmae": "app", "colour": "red", "threads": []any{map[string]any{"cpus": 1.0}}}}},
			"processes[1].threads[1].cpus: unknown key; did you mean \"cpu\"?\n" +
				"processes[1].colour: unknown key; the keys here are function, functions, name, proc, stack, stacks, thread, threads\n" +
				"processes[1].nmae: unknown key; did you mean \"name\"?"},
		{"one field twice", map[string]any{"image": []any{}, "images": []any{}, "process": p, "function": []any{fn("f", 0x10000, 16)}, "functions": []any{}},
			"images: and image are the same field: give one of them\nfunctions: and function are the same field: give one of them"},
		{"lists", map[string]any{"process": map[string]any{"name": "app"}, "image": "app.exe"},
			"image: must be a list, got a string\nprocess: must be a list, got a table"},
		{"elements", map[string]any{"processes": []any{"app", nil}},
			"processes[1]: must be a table with named keys, got a string\nprocesses[2]: must be a table with named keys, got nil"},
		{"proc", map[string]any{"process": []any{map[string]any{"proc": "app"}}},
			"process[1].proc: must be a process of the machine (from m:process{ ... }), got a string"},
		{"minimal without process", map[string]any{"functions": []any{}},
			"functions: gives a process's functions, but there is no process: the minimal form is { process = p, functions = { ... } }, p a process of the machine (from m:process{ ... })"},
		{"minimal with a process list", map[string]any{"process": []any{}, "threads": []any{}},
			"threads: gives a process's threads, but process is a list, not a process of the machine: with a list of processes, each gives its own (process = { { name = \"app\", threads = { ... } } })"},
		{"minimal without functions", map[string]any{"process": p, "functions": map[string]any{}},
			"functions: must list at least one function (the minimal form's process runs them)"},
		{"minimal with processes", map[string]any{"process": p, "processes": []any{}, "function": []any{}},
			"processes: the minimal form (process = p) has one process; for several, give processes = { { proc = p, functions = { ... } }, ... } and no process\n" +
				"function: must list at least one function (the minimal form's process runs them)"},
		{"minimal's process keys", map[string]any{"process": p, "functions": []any{fn("f", 0x10000, 16)}, "proc": p, "name": "w", "fuctions": []any{}},
			"fuctions: unknown key; did you mean \"functions\"?\n" +
				"proc: unknown key; the keys here are create_processes, function, functions, image, images, instruction_bytes, kernel, name, process, quantum_us, segment_instructions, stack, stacks, thread, threads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := DecodeTable(tt.table)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n%v\nwant\n%s", err, tt.want)
			}
			if s != nil {
				t.Errorf("a workload with errors: %+v", s)
			}
			for _, fe := range fieldErrors(t, err) {
				if fe.Field == "" {
					t.Errorf("%q names no field", fe)
				}
			}
		})
	}
}

// bigTable is a minimal-form table of n functions, as a generated Lua
// workload would be.
func bigTable(n int) map[string]any {
	fns := make([]any, n)
	for i := range fns {
		f := fn("f"+strconv.Itoa(i), float64(0x10000+0x100*i), 0x100)
		f["hotspots"] = []any{map[string]any{"offset": 0.0, "size": 16.0, "weight": 0.5}}
		fns[i] = f
	}
	return map[string]any{"process": handle("app"), "functions": fns, "threads": []any{map[string]any{"cpu": 1.0}}}
}

// BenchmarkDecodeTable decodes a table of 10,000 functions.
func BenchmarkDecodeTable(b *testing.B) {
	t := bigTable(10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeTable(t); err != nil {
			b.Fatal(err)
		}
	}
}
