package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// parseHead accepts exactly the lines Parse accepts, with Parse's
// identity of each and its params' text, and refuses the others with
// Parse's error: a pass that checks a file with it refuses what reading
// it whole would. Lines as Line.Marshal writes them are scanned
// (scanHead), and nothing else is taken for one.
func TestParseHeadIsParse(t *testing.T) {
	good, err := line(1).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// with swaps the value of key in the good line for value
	with := func(key, value string) string {
		s := string(good)
		i := strings.Index(s, `"`+key+`":`)
		if i < 0 {
			t.Fatalf("no %s in %s", key, s)
		}
		start := i + len(key) + 3
		end := start + valueLen(s[start:])
		return s[:start] + value + s[end:]
	}
	for _, raw := range []string{
		string(good),
		with("metrics", "null"),
		with("metrics", "{}"),
		with("metrics", `{"a":{"b":[1,"x",null,true,1e400]},"c":-0.5e-3}`),
		with("metrics", `{"a":{"b":[1,"x",null,true]}, "unknown": {"z": 1}}`),
		with("metrics", "[1]"),
		with("metrics", "[]"),
		with("metrics", `"text"`),
		with("metrics", "3"),
		with("metrics", "true"),
		with("metrics", `{"a":}`),
		with("metrics", `{"a":1}, "metrics": [1]`),
		with("metrics", `[1], "metrics": {}`),
		strings.Replace(string(good), `"metrics"`, `"Metrics"`, 1),
		strings.Replace(with("metrics", "[2]"), `"metrics"`, `"METRICS"`, 1),
		with("index", "3.5"),
		with("index", `"3"`),
		with("seed", "-1"),
		with("seed", "18446744073709551616"),
		with("params", "[1]"),
		with("params", "null"),
		with("params", `{ "s" : "x", "n" : 1.50 }`),
		with("params", `{"n":{"deep":[1,2]}}`),
		with("params", `"x"`),
		strings.Replace(string(good), `"params"`, `"PARAMS"`, 1),
		with("repeat", "null"),
		with("checks", `[{"passed":true,"where":"a.lua:1","message":"m"}]`),
		with("checks", `[{"passed":true,"where":"a.lua:1","message":"m","extra":1}]`),
		with("checks", `[1]`),
		with("checks", `"x"`),
		with("interrupts", `{"ProfileTime":-1}`),
		with("interrupts", `{"ProfileTime":1.5}`),
		with("error", `{"kind":"lua","message":"boom","where":"a.lua:3"}`),
		with("error", `{"kind":"lua","message":"boom","line":3}`),
		with("error", `"boom"`),
		with("timings", `{"wall_seconds":"x"}`),
		with("timings", `{"wall_seconds":1,"cpu_seconds":1}`),
		with("status", `""`),
		with("id", `""`),
		with("id", `7`),
		strings.Replace(string(good), `"status":"ok",`, ``, 1),
		strings.Replace(string(good), "}\n", `,"extra":1}`+"\n", 1),
		strings.TrimSuffix(string(good), "\n") + " trailing words\n",
		string(good[:len(good)/2]),
		"null\n",
		"[]\n",
		"not json\n",
		"",
		with("id", `"i\u0064b"`),
		with("id", "\"i\xffb\""),
		with("status", `"o\u006b"`),
		with("repeat", "-1"),
		with("index", "-0"),
		with("seed", "1e2"),
		with("seed", "2.0"),
		with("timings", `{"wall_seconds":1e400}`),
		with("timings", `{"wall_seconds":-1.5e-3}`),
		with("timings", `null`),
		with("checks", `[null]`),
		with("checks", `[{"Passed":true}]`),
		with("checks", `[{"passed":"yes"}]`),
		with("checks", `[{"passed":true},{"where":1}]`),
		with("checks", `null`),
		with("interrupts", `{"a\u0062":1,"a":18446744073709551615}`),
		with("interrupts", `{"a":18446744073709551616}`),
		with("interrupts", `null`),
		with("error", `{"kind":null}`),
		with("error", `{"kind":"lua","message":"boom","where":"a.lua:3","traceback":"t"}`),
		strings.Replace(string(good), `"index"`, `"\u0069ndex"`, 1),
		strings.Replace(string(good), `,"`, ` , "`, -1),
		strings.Replace(string(good), `{"index":1,`, `{"index":1,"index":2,`, 1),
		" \t" + string(good),
	} {
		checkHead(t, []byte(raw))
	}
	// a line as Line.Marshal writes it is scanned, not left to Parse
	for _, l := range []Line{line(1), lineWithAll()} {
		b, err := l.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := scanHead(b); !ok {
			t.Errorf("scanHead left to Parse a line Line.Marshal wrote: %s", b)
		}
	}
}

// lineWithAll is a line with every field set: a check, an error.
func lineWithAll() Line {
	l := line(2)
	l.Repeat, l.Seed, l.Status = 3, 1<<53-1, StatusError
	l.Checks = []Check{{Passed: true, Where: "a.lua:1", Message: "m \"quoted\" <tag>"}, {Passed: false, Where: "b.lua:2", Message: "é"}}
	l.Error = &Error{Kind: "lua", Message: "boom\nline", Where: "a.lua:3", Traceback: "stack"}
	l.Params = map[string]any{"f": 0.1, "big": 1e21, "s": "<a&b>", "on": true, "nested": map[string]any{"k": []any{int64(1), "x"}}}
	return l
}

// checkHead fails t unless parseHead and scanHead agree with Parse on
// raw: the same lines accepted, with Parse's error, the same identity,
// and params whose text decodes to Parse's params.
func checkHead(t *testing.T, raw []byte) {
	t.Helper()
	want, werr := Parse(raw)
	got, params, gerr := parseHead(raw)
	switch {
	case (werr == nil) != (gerr == nil):
		t.Errorf("%s\nParse: %v; parseHead: %v", raw, werr, gerr)
	case werr != nil && werr.Error() != gerr.Error():
		t.Errorf("%s\nParse says %q, parseHead %q", raw, werr, gerr)
	case werr == nil:
		if !reflect.DeepEqual(got, identity(want)) {
			t.Errorf("%s\nparseHead %+v\nParse's identity %+v", raw, got, identity(want))
		}
		if params == nil {
			break
		}
		var gotParams map[string]any
		d := json.NewDecoder(bytes.NewReader(params))
		d.UseNumber()
		if err := d.Decode(&gotParams); err != nil || !reflect.DeepEqual(gotParams, want.Params) {
			t.Errorf("%s\nparseHead's params %s (%v), Parse's %v", raw, params, err, want.Params)
		}
	}
	if l, _, ok := scanHead(raw); ok && (werr != nil || !reflect.DeepEqual(l, identity(want))) {
		t.Errorf("%s\nscanHead accepted %+v; Parse: %+v, %v", raw, l, identity(want), werr)
	}
}

// FuzzParseHead holds parseHead to Parse on any line (go test -fuzz
// FuzzParseHead explores further; the seeds run as a test).
func FuzzParseHead(f *testing.F) {
	for _, l := range []Line{line(0), line(1), lineWithAll()} {
		b, err := l.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"index":1,"id":"a","status":"ok","checks":[{"passed":null}],"interrupts":{"x":1},"timings":null}`))
	f.Fuzz(func(t *testing.T, raw []byte) { checkHead(t, raw) })
}

// valueLen is the length of the JSON value s begins with (up to the
// comma or brace that ends it at depth 0); strings hold no brackets here.
func valueLen(s string) int {
	depth := 0
	for i, c := range s {
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

// BenchmarkParseHead is the cost of checking a line with parseHead
// against decoding it whole.
func BenchmarkParseHead(b *testing.B) {
	raw, err := line(1).Marshal()
	if err != nil {
		b.Fatal(err)
	}
	for name, parse := range map[string]func([]byte) (Line, error){"Parse": Parse, "parseHead": parseLineHead} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parse(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// plainRuns are runs whose expectations are given.
type plainRuns []Expected

func (r plainRuns) Len() int                      { return len(r) }
func (r plainRuns) Expect(i int) (Expected, bool) { return r[i], true }

// validateHead passes and refuses the lines Validate does, with its
// words, whether the params are the plan's text (not decoded) or not.
func TestValidateHeadIsValidate(t *testing.T) {
	params := map[string]any{"n": int64(3), "f": 0.1, "big": 1e21, "huge": int64(9007199254740993), "s": "<a&b> é\u2028", "on": true}
	plan := plainRuns{{ID: "ida", Params: map[string]any{}, Seed: 1}, {ID: "idb", Params: params, Seed: 2}}
	l := line(1)
	l.ID, l.Params, l.Seed = "idb", params, 2
	b, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	good := string(b)
	canon := string(canonical(params))
	if !strings.Contains(good, `"params":`+canon+`,`) {
		t.Fatalf("the line does not hold its params as canonical writes them: %s", good)
	}
	for _, raw := range []string{
		good,
		strings.Replace(good, canon, `{"s":"<a&b> é\u2028","on":true,"n":3,"huge":9007199254740993,"f":0.1,"big":1e+21}`, 1), // other order
		strings.Replace(good, canon, `{ "big": 1e+21, "f": 0.1, "huge": 9007199254740993, "n": 3, "on": true, "s": "\u003ca\u0026b\u003e é\u2028" }`, 1),
		strings.Replace(good, `"n":3`, `"n":3.0`, 1),
		strings.Replace(good, `"n":3`, `"n":4`, 1),
		strings.Replace(good, `"n":3,`, ``, 1),
		strings.Replace(good, `"params":`+canon, `"params":null`, 1),
		strings.Replace(good, `"params":`+canon, `"params":{}`, 1),
		strings.Replace(good, `"seed":2`, `"seed":7`, 1),
		strings.Replace(good, `"id":"idb"`, `"id":"ida"`, 1),
		strings.Replace(good, `"index":1`, `"index":0`, 1),
		strings.Replace(good, `"index":1`, `"index":2`, 1),
		strings.Replace(good, `"index":1`, `"index":-1`, 1),
		strings.Replace(good, "}\n", `,"seed":7}`+"\n", 1),                         // a second seed, which wins
		strings.Replace(good, "}\n", `,"params":{"n":4}}`+"\n", 1),                 // second params
		strings.Replace(good, "}\n", `,"Params":`+canon+`,"params":null}`+"\n", 1), // its text, then none
	} {
		full, err := Parse([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		h, ps, err := parseHead([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		for _, runs := range []Runs{plan, RunCount(2), nil} {
			want, got := fmt.Sprint(Validate(runs, full)), fmt.Sprint(validateHead(runs, h, ps, []byte(raw)))
			if got != want {
				t.Errorf("%s\nruns %v: validateHead says %s, Validate %s", raw, runs, got, want)
			}
		}
	}
}
