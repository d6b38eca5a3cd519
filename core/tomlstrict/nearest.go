package tomlstrict

import (
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/proflab/proflab/core/suggest"
)

// nearest returns the key a person most likely meant by the unknown key
// k of a document decoded into v: the key of the same table, among those
// v's type declares there, nearest to k's last part (core/suggest's
// rule), as a whole dotted key; "" when none is near or the table is free
// (a map of any keys, an interface).
func nearest(v any, k toml.Key) string {
	if len(k) == 0 {
		return ""
	}
	t := reflect.TypeOf(v)
	for _, part := range k[:len(k)-1] {
		if t = tableType(t, part); t == nil {
			return ""
		}
	}
	near := suggest.Closest(k[len(k)-1], keysOf(t))
	if near == "" {
		return ""
	}
	return append(k[:len(k)-1:len(k)-1], near).String()
}

// table is the struct or map type that t holds tables as: t itself, or
// what its pointers, slices (arrays of tables) and arrays hold.
func table(t reflect.Type) reflect.Type {
	for t != nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			t = t.Elem()
		default:
			return t
		}
	}
	return nil
}

// tableType is the type of the table name inside a table of type t, or
// nil when t declares no such key or takes any key of unknown shape.
func tableType(t reflect.Type, name string) reflect.Type {
	t = table(t)
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Map:
		return t.Elem() // [hal.NAME]: any name, the shape of its value
	case reflect.Struct:
		if f, ok := field(t, name); ok {
			return f.Type
		}
	}
	return nil
}

// field is the field of struct t that the key name decodes into: the one
// tagged name, else an untagged one of that name in any case (as
// BurntSushi/toml matches them).
func field(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if embedded(f) {
			if g, ok := field(table(f.Type), name); ok {
				return g, true
			}
			continue
		}
		if key, ok := fieldKey(f); ok && (key == name || !tagged(f) && strings.EqualFold(key, name)) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// keysOf are the keys a table of type t declares (none for a map or an
// interface: any key may be there).
func keysOf(t reflect.Type) []string {
	t = table(t)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if embedded(f) {
			keys = append(keys, keysOf(f.Type)...)
			continue
		}
		if key, ok := fieldKey(f); ok {
			keys = append(keys, key)
		}
	}
	return keys
}

// fieldKey is the key that decodes into f: its toml tag's name, else its
// name; false for a field TOML does not decode (unexported, tagged "-").
func fieldKey(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	switch name {
	case "-":
		return "", false
	case "":
		return f.Name, true
	}
	return name, true
}

// embedded reports whether f is an embedded struct whose keys TOML
// decodes as its container's.
func embedded(f reflect.StructField) bool {
	e := table(f.Type)
	return f.Anonymous && !tagged(f) && e != nil && e.Kind() == reflect.Struct
}

// tagged reports whether f has a toml tag naming its key.
func tagged(f reflect.StructField) bool {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name != ""
}
