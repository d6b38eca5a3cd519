package luart

import (
	"testing"

	"github.com/proflab/proflab/core/runerr"
)

// labScript runs src after `local lab = require "proflab"` (so scripts
// start at line 2) and fails the test on an error or a failed check.
func labScript(t *testing.T, src string) *Runtime {
	t.Helper()
	rt, log := newTestRuntime(t, Config{Seed: 1})
	if err := rt.Exec("s.lua", []byte("local lab = require 'proflab'\n"+src)); err != nil {
		t.Fatalf("%s\nlog:\n%s", err.Detail(), log)
	}
	failed := 0
	for _, c := range rt.Checks() {
		if !c.Passed {
			failed++
			t.Errorf("%s: %s", c.Where, c.Message)
		}
	}
	if len(rt.Checks()) == 0 {
		t.Error("the script made no checks")
	}
	if failed > 0 && log.Len() > 0 {
		t.Logf("log:\n%s", log)
	}
	return rt
}

// labError runs src and returns its error message ("" when none).
func labError(t *testing.T, src string) string {
	t.Helper()
	rt, _ := newTestRuntime(t, Config{Seed: 1})
	err := rt.Exec("s.lua", []byte("local lab = require 'proflab'\n"+src))
	if err == nil {
		return ""
	}
	if err.Kind == runerr.KindBug {
		t.Errorf("%s: a proflab bug: %s", src, err.Detail())
	}
	return err.Message
}

// wantLabError checks that src raises an error containing every fragment.
func wantLabError(t *testing.T, src string, fragments ...string) {
	t.Helper()
	expectFragments(t, src, labError(t, src), fragments)
}
