package luart

import (
	"context"
	"errors"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/runerr"
)

// The simulator's own consistency failures ("proflab bug: ...") are bugs
// (exit status 4) even when the scenario catches the error; other m:run
// failures are the scenario's.
func TestRunErrorKinds(t *testing.T) {
	for _, tc := range []struct {
		err error
		bug bool
	}{
		{errors.New("proflab bug: the simulator made no progress on processor 0 at cycle 7 (please report it)"), true},
		{errors.New("workload: functions[1].size: must be > 0"), false},
	} {
		rt := New(Config{})
		rt.L.SetGlobal("fail", rt.Func("m:run", func(L *lua.LState) int {
			rt.raiseRunError(L, nil, "m:run", context.Background(), tc.err)
			return 0
		}))
		if err := rt.Exec("s.lua", []byte("local ok, msg = pcall(fail)\nassert(not ok)")); err != nil {
			t.Fatalf("%v: %s", tc.err, err.Detail())
		}
		bug := rt.Bug()
		if (bug != nil) != tc.bug {
			t.Errorf("%v: bug %v, want one: %v", tc.err, bug, tc.bug)
		}
		if bug != nil && (bug.Kind != runerr.KindBug || !strings.HasPrefix(bug.Message, "s.lua:1: m:run: proflab bug")) {
			t.Errorf("bug %+v", bug)
		}
		rt.Close()
	}
}
