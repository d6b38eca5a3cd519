package profread

import (
	"encoding/json"
	"testing"
)

func TestScalarText(t *testing.T) {
	tests := []struct {
		in       string
		text     string
		null     bool
		wantsErr bool
	}{
		{in: `12`, text: "12"},
		{in: `-1.5e3`, text: "-1.5e3"},
		{in: `"0x10"`, text: "0x10"},
		{in: `"a\u0041"`, text: "aA"},
		{in: `null`, null: true},
		{in: `"unterminated\`, wantsErr: true},
	}
	for _, tc := range tests {
		text, null, err := ScalarText([]byte(tc.in))
		if (err != nil) != tc.wantsErr || text != tc.text || null != tc.null {
			t.Errorf("ScalarText(%s) = %q, %v, %v; want %q, %v, error %v", tc.in, text, null, err, tc.text, tc.null, tc.wantsErr)
		}
	}
}

func TestFlexNumbers(t *testing.T) {
	var v struct {
		I FlexInt   `json:"i"`
		F FlexFloat `json:"f"`
		N FlexInt   `json:"n"`
	}
	if err := json.Unmarshal([]byte(`{"i":"42","f":2.5,"n":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if !v.I.Set || v.I.Value != 42 {
		t.Errorf("FlexInt from a string: %+v, want 42", v.I)
	}
	if !v.F.Set || v.F.Value != 2.5 {
		t.Errorf("FlexFloat from a number: %+v, want 2.5", v.F)
	}
	if v.N.Set {
		t.Errorf("FlexInt from null: %+v, want unset", v.N)
	}
	if err := json.Unmarshal([]byte(`{"i":"12x"}`), &v); err == nil {
		t.Error("FlexInt accepted \"12x\"")
	}
}

// TestLineCol: Reading.LineCol's line and column of every offset (and
// of offsets before and past the data) are those counted from the
// start, on data with and without newlines, blank lines and CRLF.
func TestLineCol(t *testing.T) {
	for _, data := range []string{"", "one line", "a\nbc\n\nd", "\n\n", "x\r\ny\r\n", "ends\n"} {
		r := &Reading{Data: []byte(data)}
		for off := int64(-2); off <= int64(len(data))+2; off++ {
			o := max(0, min(off, int64(len(data))))
			wantLine, wantCol := 1, 1
			for _, c := range data[:o] {
				wantCol++
				if c == '\n' {
					wantLine, wantCol = wantLine+1, 1
				}
			}
			if line, col := r.LineCol(off); line != wantLine || col != wantCol {
				t.Errorf("%q at %d: line %d column %d, want %d:%d", data, off, line, col, wantLine, wantCol)
			}
		}
	}
}
