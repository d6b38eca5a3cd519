package luavm

import (
	"bytes"
	"strings"
	"testing"
)

// newTestState returns a state over a temporary folder, closed at the end
// of the test, and its log. Its global lab holds the u64 functions under
// the names the proflab module gives them (lab.u64, lab.tonumber), which
// the interpreter's messages advise.
func newTestState(t testing.TB, cfg Config) (*State, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	if cfg.Log == nil {
		cfg.Log = &log
	}
	vm := New(cfg)
	t.Cleanup(vm.Close)
	lab := vm.L.NewTable()
	lab.RawSetString("u64", vm.Func("lab.u64", U64Func("lab.u64")))
	lab.RawSetString("tonumber", vm.Func("lab.tonumber", ToNumberFunc("lab.tonumber")))
	vm.L.SetGlobal("lab", lab)
	return vm, &log
}

// eval runs `return tostring(expr)` in a fresh state, on the chunk's line
// 2, and returns the string, failing the test on an error.
func eval(t *testing.T, expr string) string {
	t.Helper()
	vm, _ := newTestState(t, Config{Seed: 1})
	if err := vm.Exec("t.lua", []byte("local lab = lab\n__r = tostring("+expr+")")); err != nil {
		t.Fatalf("%s: %v", expr, err.Detail())
	}
	return vm.L.GetGlobal("__r").String()
}

// evalErr runs the statement (on line 2) and returns its error message
// ("" if none).
func evalErr(t *testing.T, stmt string) string {
	t.Helper()
	vm, _ := newTestState(t, Config{Seed: 1})
	err := vm.Exec("t.lua", []byte("local lab = lab\n"+stmt))
	if err == nil {
		return ""
	}
	return err.Message
}

// wantErr checks that stmt raises an error containing every fragment.
func wantErr(t *testing.T, stmt string, fragments ...string) {
	t.Helper()
	msg := evalErr(t, stmt)
	if msg == "" {
		t.Errorf("%s: no error, want one containing %q", stmt, fragments)
		return
	}
	for _, f := range fragments {
		if !strings.Contains(msg, f) {
			t.Errorf("%s:\nerror %q\ndoes not contain %q", stmt, msg, f)
		}
	}
}
