package profread

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// jsonMaxDepth is how deeply encoding/json lets arrays and objects nest:
// a deeper document is a syntax error ("exceeded max depth").
const jsonMaxDepth = 10000

// DecodeJSON decodes the source's JSON document data into v; a failure
// is an [*Error] at the line where the document is malformed or holds a
// value of the wrong type. what names the document ("V8 CPU profile").
func (r *Reading) DecodeJSON(data []byte, v any, what string) error {
	if err := json.Unmarshal(data, v); err != nil {
		return r.JSONError(data, 0, err, what)
	}
	return nil
}

// JSONError is a JSON decoding error as a person reads it: the line and
// column (of data, which starts at byte base of the source), what was
// wrong and what to do.
func (r *Reading) JSONError(data []byte, base int64, err error, what string) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line, col := r.LineCol(base + se.Offset)
		if strings.Contains(se.Error(), "exceeded max depth") {
			return r.LineErrorf(line, "column %d: the %s nests arrays and objects more than %d deep, the most a JSON document may (encoding/json's limit, which keeps its decoder's recursion bounded): give the file as the tool wrote it", col, what, jsonMaxDepth)
		}
		if se.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))) || strings.Contains(se.Error(), "unexpected end") {
			return r.LineErrorf(line, "the %s ends in the middle of its JSON (column %d): the file is truncated; give the whole file", what, col)
		}
		return r.LineErrorf(line, "column %d: the %s is not valid JSON (%v): give the file as the tool wrote it", col, what, se)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "a value"
		}
		msg := fmt.Sprintf("%s is %s, but the %s holds %s there", field, jsonValueText(te.Value), what, typeText(te.Type))
		if te.Offset == 0 { // a value of ours refused it: the decoder gives no offset
			return r.Errorf("%s", msg)
		}
		line, col := r.LineCol(base + te.Offset)
		return r.LineErrorf(line, "column %d: %s", col, msg)
	}
	return r.Errorf("the %s cannot be read: %v", what, err)
}

// jsonValueText names a JSON value as UnmarshalTypeError gives it
// ("number 1.5", "string", "array").
func jsonValueText(v string) string {
	switch {
	case v == "":
		return "a value"
	case strings.HasPrefix(v, "number"), strings.HasPrefix(v, "string"), v == "bool":
		return "a " + v
	case strings.HasPrefix(v, "array"), strings.HasPrefix(v, "object"):
		return "an " + v
	}
	return v
}

// typeText names what a Go type reads in JSON words.
func typeText(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[json.Number]() {
		return "a number"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return fmt.Sprintf("a %s", t)
}

// FlexInt is an integer that a file writes as a number or as a string of
// digits (V8 writes a scriptId one way in .cpuprofile files and the other
// in trace events; Firefox's pids are strings in newer profiles).
type FlexInt struct {
	// Value is the integer, when Set (the file gave one).
	Value int64
	Set   bool
}

// ScalarText is the text of a JSON value that a file may write as a
// number or as a string holding one: a string's contents, or the
// number's text as written; null says the file gave none.
func ScalarText(b []byte) (text string, null bool, err error) {
	s := string(b)
	if s == "null" {
		return "", true, nil
	}
	if len(s) >= 2 && s[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return "", false, err
		}
	}
	return s, false, nil
}

// UnmarshalJSON reads a number or a string holding one; null is unset.
func (f *FlexInt) UnmarshalJSON(b []byte) error {
	s, null, err := ScalarText(b)
	if null || err != nil {
		*f = FlexInt{}
		return err
	}
	var n json.Number
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		return &json.UnmarshalTypeError{Value: "string " + Clip(s), Type: reflect.TypeFor[int64]()}
	}
	v, err := n.Int64()
	if err != nil {
		return &json.UnmarshalTypeError{Value: "number " + s, Type: reflect.TypeFor[int64]()}
	}
	*f = FlexInt{Value: v, Set: true}
	return nil
}

// FlexString is a string that a file may write as a number (an id).
type FlexString string

// UnmarshalJSON reads a string or a number's text; null is "".
func (f *FlexString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = ""
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = FlexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return &json.UnmarshalTypeError{Value: "value " + Clip(string(b)), Type: reflect.TypeFor[string]()}
	}
	*f = FlexString(n)
	return nil
}

// FlexFloat is a number that a file may write as a string of digits
// (Hermes' trace events write their timestamps "11550183666").
type FlexFloat struct {
	// Value is the number, when Set (the file gave one).
	Value float64
	Set   bool
}

// UnmarshalJSON reads a number or a string holding one; null is unset.
func (f *FlexFloat) UnmarshalJSON(b []byte) error {
	s, null, err := ScalarText(b)
	if null || err != nil {
		*f = FlexFloat{}
		return err
	}
	var n json.Number
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		return &json.UnmarshalTypeError{Value: "string " + Clip(s), Type: reflect.TypeFor[float64]()}
	}
	v, err := n.Float64()
	if err != nil || math.IsInf(v, 0) {
		return &json.UnmarshalTypeError{Value: "number " + s, Type: reflect.TypeFor[float64]()}
	}
	*f = FlexFloat{Value: v, Set: true}
	return nil
}
