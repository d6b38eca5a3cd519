package luart

import (
	"bytes"
	"strings"
	"testing"
)

// newTestRuntime returns a runtime over a temporary folder, closed at the
// end of the test, and its log.
func newTestRuntime(t *testing.T, cfg Config) (*Runtime, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	if cfg.Log == nil {
		cfg.Log = &log
	}
	rt := New(cfg)
	t.Cleanup(rt.Close)
	return rt, &log
}

// eval runs `return tostring(expr)` in a fresh runtime and returns the
// string, failing the test on an error.
func eval(t *testing.T, expr string) string {
	t.Helper()
	rt, _ := newTestRuntime(t, Config{Seed: 1})
	if err := rt.Exec("t.lua", []byte("local lab = require 'proflab'\n__r = tostring("+expr+")")); err != nil {
		t.Fatalf("%s: %v", expr, err.Detail())
	}
	return rt.L.GetGlobal("__r").String()
}

// evalErr runs the statement and returns its error message ("" if none).
func evalErr(t *testing.T, stmt string) string {
	t.Helper()
	rt, _ := newTestRuntime(t, Config{Seed: 1})
	err := rt.Exec("t.lua", []byte("local lab = require 'proflab'\n"+stmt))
	if err == nil {
		return ""
	}
	return err.Message
}

// wantErr checks that stmt raises an error containing every fragment.
func wantErr(t *testing.T, stmt string, fragments ...string) {
	t.Helper()
	expectFragments(t, stmt, evalErr(t, stmt), fragments)
}

// expectFragments checks that msg, the error src raised, is not empty and
// contains every fragment.
func expectFragments(t *testing.T, src, msg string, fragments []string) {
	t.Helper()
	if msg == "" {
		t.Errorf("%s: no error, want one containing %q", src, fragments)
		return
	}
	for _, f := range fragments {
		if !strings.Contains(msg, f) {
			t.Errorf("%s:\nerror %q\ndoes not contain %q", src, msg, f)
		}
	}
}
