package jsonprof

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profread"
)

// geckoTable is a table of a Firefox profile in either of its forms: the
// Gecko format's schema (column name → position) with rows of data, or
// the processed format's columns (name → values) with a length.
type geckoTable struct {
	schema     map[string]int
	rows       [][]geckoCell
	cols       map[string][]geckoCell
	length     int
	weightType string
	present    bool
}

// geckoCell is a value of a table: a number, null, a boolean, or
// anything else (a string or object the importer does not read).
type geckoCell struct {
	v    float64
	kind byte // 0: absent, 'n': null, '0': number, 't'/'f': boolean, 's': other
}

// UnmarshalJSON reads a cell without allocating for numbers.
func (c *geckoCell) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case 'n':
		c.kind = 'n'
	case 't', 'f':
		c.kind = b[0]
	case '"', '{', '[':
		c.kind = 's'
	default:
		v, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return err
		}
		c.v, c.kind = v, '0'
	}
	return nil
}

// index is the cell as an index (ok false: null, absent, not a
// non-negative integer).
func (c geckoCell) index() (int, bool) {
	if c.kind != '0' || c.v < 0 || c.v != math.Trunc(c.v) || c.v > math.MaxInt32 {
		return 0, false
	}
	return int(c.v), true
}

// UnmarshalJSON reads either form of a table; columns that are not
// arrays of scalars (a processed marker table's payloads) are skipped.
func (t *geckoTable) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	t.present = true
	for k, v := range m {
		var err error
		switch k {
		case "schema":
			if err = json.Unmarshal(v, &t.schema); err == nil {
				if err = t.checkSchema(); err != nil {
					return err
				}
			}
		case "data":
			err = json.Unmarshal(v, &t.rows)
		case "length":
			err = json.Unmarshal(v, &t.length)
		case "weightType":
			err = json.Unmarshal(v, &t.weightType)
		default:
			if len(v) > 0 && v[0] == '[' {
				var c []geckoCell
				if json.Unmarshal(v, &c) == nil {
					if t.cols == nil {
						t.cols = map[string][]geckoCell{}
					}
					t.cols[k] = c
				}
			}
		}
		if err != nil {
			return &json.UnmarshalTypeError{Value: "value", Type: reflect.TypeFor[map[string]any](), Field: k}
		}
	}
	return nil
}

// checkSchema refuses a schema position that is negative: no row has a
// cell there (a position past a row's end is an absent cell).
func (t *geckoTable) checkSchema() error {
	for _, name := range slices.Sorted(maps.Keys(t.schema)) {
		if pos := t.schema[name]; pos < 0 {
			return fmt.Errorf("the schema puts column %q at position %d: positions are 0 or more (the profile is damaged)", profread.Clip(name), pos)
		}
	}
	return nil
}

// check says whether the table's size is one the file holds: a
// processed table's length may not exceed its longest column (its rows
// are the columns' values, so a length past them is a damaged or forged
// file, and reading it would allocate and loop for rows that are not
// there). where and name say which table ("threads[0]", "frameTable").
func (t *geckoTable) check(where, name string) error {
	if !t.columnar() || t.length <= 0 {
		return nil
	}
	longest := 0
	for _, c := range t.cols {
		longest = max(longest, len(c))
	}
	if t.length > longest {
		return fmt.Errorf("%s: the %s says it has %d rows, but its longest column holds %d values: the profile is damaged; save it again from profiler.firefox.com", where, name, t.length, longest)
	}
	return nil
}

// columnar says whether the table is in the processed form.
func (t *geckoTable) columnar() bool { return t.rows == nil && t.schema == nil }

// len is the number of rows.
func (t *geckoTable) len() int {
	if !t.columnar() {
		return len(t.rows)
	}
	if t.length > 0 {
		return t.length
	}
	n := 0
	for _, c := range t.cols {
		n = max(n, len(c))
	}
	return n
}

// has says whether the table has the column.
func (t *geckoTable) has(name string) bool {
	if t.columnar() {
		_, ok := t.cols[name]
		return ok
	}
	_, ok := t.schema[name]
	return ok
}

// column is the accessor of a column (absent cells for a missing
// column); def is its position when the rows have no schema (Firefox
// DevTools' old export).
func (t *geckoTable) column(name string, def int) func(i int) geckoCell {
	if t.columnar() {
		c := t.cols[name]
		return func(i int) geckoCell {
			if i < len(c) {
				return c[i]
			}
			return geckoCell{}
		}
	}
	pos, ok := t.schema[name]
	if !ok {
		if t.schema != nil || def < 0 {
			return func(int) geckoCell { return geckoCell{} }
		}
		pos = def
	}
	return func(i int) geckoCell {
		if i < len(t.rows) && pos < len(t.rows[i]) {
			return t.rows[i][pos]
		}
		return geckoCell{}
	}
}

// geckoStrings is a thread's string table: an array of strings, or the
// {"_array": [...]} object some processed profiles saved.
type geckoStrings []string

// UnmarshalJSON reads either form.
func (s *geckoStrings) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		var o struct {
			Array []string `json:"_array"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return err
		}
		*s = o.Array
		return nil
	}
	var a []string
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	*s = a
	return nil
}

// flexUint is an address a file writes as a number or a string
// ("0x7f00…" or decimal).
type flexUint struct {
	v   uint64
	set bool
}

// UnmarshalJSON reads a number or a string; null is unset.
func (f *flexUint) UnmarshalJSON(b []byte) error {
	s, null, err := profread.ScalarText(b)
	if null || err != nil {
		*f = flexUint{}
		return err
	}
	var v uint64
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		v, err = strconv.ParseUint(h, 16, 64)
	} else if v, err = strconv.ParseUint(s, 10, 64); err != nil {
		var fv float64 // JSON writers print large integers as floats
		if fv, err = strconv.ParseFloat(s, 64); err == nil && fv >= 0 && fv < 1<<64 {
			v = uint64(fv)
		} else if err == nil {
			err = fmt.Errorf("out of range")
		}
	}
	if err != nil {
		return &json.UnmarshalTypeError{Value: "value " + profread.Clip(s), Type: reflect.TypeFor[uint64]()}
	}
	*f = flexUint{v: v, set: true}
	return nil
}
