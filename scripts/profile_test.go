package scripts_test

import (
	"strings"
	"testing"
)

// The profile helpers raise on a failed status at the scenario's line,
// naming the helper, the service and the status, unless told check =
// false (in the spec, for the profile's later calls too, or per call),
// which returns the status as before.
func TestProfileChecksStatuses(t *testing.T) {
	const head = "local lab = require 'proflab'\nlocal P = require 'profile'\n" +
		"local m = lab.machine{ version = '10.0.19041', cpus = 1 }\nlocal p = m:process{}\n"
	for _, tt := range []struct {
		name, src string
		want      string // the error, "" for none
	}{
		{"create raises", "local pr = P.create(p, { process = false, base = 0x400000, size = 0x100 })\n",
			"t.lua:5: profile.create: NtCreateProfile returned STATUS_PRIVILEGE_NOT_HELD; pass check = false"},
		{"create returns the status", "local pr = P.create(p, { process = false, base = 0x400000, size = 0x100, check = false })\n" +
			"lab.check(pr.status == lab.STATUS_PRIVILEGE_NOT_HELD and pr.handle == nil, 'status')\n", ""},
		{"start twice raises", "local pr = P.create(p, { base = 0x400000, size = 0x40 })\nlab.check(P.start(pr) == lab.STATUS_SUCCESS, 'ok')\nP.start(pr)\n",
			"t.lua:7: profile.start: NtStartProfile returned STATUS_PROFILING_NOT_STOPPED"},
		{"stop raises", "local pr = P.create(p, { base = 0x400000, size = 0x40 })\n\nP.stop(pr)\n",
			"t.lua:7: profile.stop: NtStopProfile returned STATUS_PROFILING_NOT_STARTED"},
		{"close raises", "local pr = P.create(p, { base = 0x400000, size = 0x40 })\nP.close(pr)\nP.close(pr)\n",
			"t.lua:7: profile.close: NtClose returned STATUS_INVALID_HANDLE"},
		{"per call opt-out", "local pr = P.create(p, { base = 0x400000, size = 0x40 })\n" +
			"lab.check(P.stop(pr, { check = false }) == lab.STATUS_PROFILING_NOT_STARTED, 'status')\n", ""},
		{"the profile's opt-out", "local pr = P.create(p, { base = 0x400000, size = 0x40, check = false })\n" +
			"lab.check(P.stop(pr) == lab.STATUS_PROFILING_NOT_STARTED, 'status')\nP.start(pr)\n" +
			"lab.check(P.start(pr) == lab.STATUS_PROFILING_NOT_STOPPED, 'status')\n", ""},
		{"a per-call check overrides", "local pr = P.create(p, { base = 0x400000, size = 0x40, check = false })\nP.stop(pr, { check = true })\n",
			"t.lua:6: profile.stop: NtStopProfile returned STATUS_PROFILING_NOT_STARTED"},
		{"create_and_start raises whatever check says", "P.create_and_start(p, { process = false, base = 0x400000, size = 0x100, check = false })\n",
			"t.lua:5: profile.create_and_start: NtCreateProfile returned STATUS_PRIVILEGE_NOT_HELD"},
		{"check must be a boolean", "P.create(p, { base = 0x400000, size = 0x40, check = 'no' })\n",
			`t.lua:5: profile.create{...}: field "check": expected true or false, got string`},
		{"options must be a table", "local pr = P.create(p, { base = 0x400000, size = 0x40 })\nP.stop(pr, false)\n",
			"t.lua:6: profile.stop: expected a table of options ({ check = … }), got boolean"},
		{"old docs: a success still reads as one", "local pr = P.create(p, { base = 0x400000, size = 0x40 })\n" +
			"lab.check(pr.status == lab.STATUS_SUCCESS and P.start(pr) == lab.STATUS_SUCCESS and P.stop(pr) == lab.STATUS_SUCCESS, 'ok')\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runLua(t, head+tt.src)
			switch {
			case tt.want == "" && r.Error != nil:
				t.Fatalf("error %s", r.Error.Detail())
			case tt.want == "":
				if len(r.Checks) == 0 || len(r.Failed()) > 0 {
					t.Errorf("checks %+v", r.Checks)
				}
			case r.Error == nil:
				t.Fatalf("no error, want %q", tt.want)
			case !strings.Contains(r.Error.Detail(), tt.want):
				t.Errorf("error %q, want %q", r.Error.Detail(), tt.want)
			}
		})
	}
}
