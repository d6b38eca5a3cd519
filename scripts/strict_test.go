package scripts_test

import (
	"fmt"
	"strings"
	"testing"
)

// Every library function that takes a table of options refuses a key it
// does not know, naming the key, the function and the nearest key, as
// m:run{...} does, and a known option of the wrong type; every function
// refuses an argument of the wrong type with its name. The error is the
// scenario's, at its line (t.lua:6), never a silent default: the issue's
// profile.create{ sorce = …, bucketsize = 4 } made a 16-byte timer
// profile.
func TestLibraryIsStrict(t *testing.T) {
	const head = "local lab = require 'proflab'\nlocal P, S, stats, A = require 'profile', require 'sampling', require 'stats', require 'assert'\n" +
		"local kr, wpr, tracelog = require 'tools.kernrate', require 'tools.wpr', require 'tools.tracelog'\n" +
		"local m = lab.machine{ version = '10.0.19041', cpus = 1 }\nlocal p = m:process{ privileges = { 'SeSystemProfilePrivilege' } }\n"
	for _, tt := range []struct{ name, src, want string }{
		{"profile.create: misspelt keys", "P.create(p, { base = 0x400000, size = 0x100, sorce = lab.ProfileTotalIssues, bucketsize = 4 })",
			`profile.create{...}: unknown field "bucketsize"; unknown field "sorce" (did you mean "source"?); its fields are affinity, base, bucket, buffer, buffer_size, check, groups, process, size, source`},
		{"profile.create: a string bucket", "P.create(p, { base = 0x400000, size = 0x100, bucket = '4' })",
			`profile.create{...}: field "bucket": expected a number or a u64, got the string "4"`},
		{"profile.create: process true", "P.create(p, { base = 0x400000, size = 0x100, process = true })",
			`profile.create{...}: field "process": expected a whole number or a u64, or false, got boolean`},
		{"profile.create: spec not a table", "P.create(p, 'base')",
			`profile.create: argument #2 (spec): expected a table, got string`},
		{"profile.create: caller not an object", "P.create(m:cpu_count(), { base = 0, size = 4 })",
			`profile.create: argument #1 (caller): expected a proflab object (a machine, process, thread…), got number`},
		{"profile.create: a group's key", "P.create(p, { base = 0x400000, size = 0x100, groups = { { mask = 1, gruop = 0 } } })",
			`profile.create: groups[1]{...}: unknown field "gruop" (did you mean "group"?); its fields are group, mask`},
		{"profile.create: a group without mask", "P.create(p, { base = 0x400000, size = 0x100, groups = { { group = 0 } } })",
			`profile.create: groups[1]: mask is required`},
		{"profile.create_and_start", "P.create_and_start(p, { base = 0x400000, size = 0x100, affinty = 1 })",
			`profile.create_and_start{...}: unknown field "affinty" (did you mean "affinity"?)`},
		{"profile.start's options", "local pr = P.create(p, { base = 0x400000, size = 0x100 })\nP.start(pr, { chek = false })",
			`profile.start{...}: unknown field "chek" (did you mean "check"?); its fields are check`},
		{"profile.stop's check", "local pr = P.create(p, { base = 0x400000, size = 0x100 })\nP.stop(pr, { check = 0 })",
			`profile.stop{...}: field "check": expected true or false, got number`},
		{"profile.buckets", "local pr = P.create(p, { base = 0x400000, size = 0x100 })\nP.buckets(pr, '3')",
			`profile.buckets: argument #2 (n): expected a whole number or a u64, or nil, got string`},
		{"sampling.by_function", "S.by_function({ 1 }, 0x1000, '4', {})",
			`sampling.by_function: argument #3 (bucket): expected a number or a u64, got the string "4"`},
		{"sampling.truth", "S.truth({ truth = {} }, {}, 5)",
			`sampling.truth: argument #3 (what): expected a string, or nil, got number`},
		{"sampling.accuracy", "S.accuracy({ 1 }, 0x1000, 4, nil)",
			`sampling.accuracy: argument #4 (res): expected a table, got nil`},
		{"sampling.control_areas", "S.control_areas(p:id())",
			`sampling.control_areas: argument #1 (m): expected a proflab object`},
		{"stats.total_variation", "stats.total_variation({ a = 1 }, nil)",
			`stats.total_variation: argument #2 (q): expected a table, got nil`},
		{"assert.expect_near", "A.expect_near(0.26, 0.25, '0.02')",
			`assert.expect_near: argument #3 (tol): expected a number, got string`},
		{"assert.expect_error", "A.expect_error(function() end, 5)",
			`assert.expect_error: argument #2 (pattern): expected a string, or nil, got number`},
		{"kernrate.run's options", "kr.run(m, { '-s', '1' }, { workload = 'x.toml', quite = true })",
			`kernrate.run{...}: unknown field "quite" (did you mean "quiet"?); its fields are process, quiet, workload`},
		{"kernrate.run's workload", "kr.run(m, { '-s', '1' }, { workload = 5 })",
			`kernrate.run{...}: field "workload": expected a string, or a table, got number`},
		{"wpr.run's options", "wpr.run(m, { '-profint' }, { proccess = p })",
			`wpr.run{...}: unknown field "proccess" (did you mean "process"?); its fields are process, quiet`},
		{"tracelog.run's quiet", "tracelog.run(m, { '-profilesources', 'Help' }, { quiet = 'yes' })",
			`tracelog.run{...}: field "quiet": expected true or false, got string`},
		{"tracelog.run's machine", "tracelog.run(nil, { '-profilesources', 'Help' })",
			`tracelog.run: argument #1 (m): expected a proflab object (a machine, process, thread…), got nil`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runLua(t, head+tt.src+"\n")
			if r.Error == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			line := strings.Count(head, "\n") + 1 + strings.Count(tt.src, "\n")
			want := fmt.Sprintf("t.lua:%d: %s", line, tt.want)
			if !strings.Contains(r.Error.Message, want) {
				t.Errorf("error %q\nwant %q", r.Error.Message, want)
			}
		})
	}
}

// What is right still passes through the checks: the options a function
// documents, nil for options, u64 values where numbers go.
func TestLibraryStrictnessLetsRightCallsThrough(t *testing.T) {
	mustPass(t, `
local P, S = require 'profile', require 'sampling'
local wpr = require 'tools.wpr'
local m = lab.machine{ version = '10.0.19041', cpus = 2 }
local p = m:process{ privileges = { 'SeSystemProfilePrivilege' } }
local pr = P.create(p, { process = false, base = lab.u64(0x400000), size = 0x100, bucket = 4, buffer_size = 64,
  source = lab.ProfileTime, affinity = -1, check = true })
lab.check(P.start(pr, nil) == lab.STATUS_SUCCESS and P.stop(pr, { check = false }) == lab.STATUS_SUCCESS, "start, stop")
local ex = P.create(p, { base = 0x400000, size = 0x100, groups = { { mask = 3, group = 0 } } })
lab.check(ex.status == lab.STATUS_SUCCESS and P.close(ex, {}) == lab.STATUS_SUCCESS, "the Ex form")
lab.check(#P.buckets(pr, lab.u64(2)) == 2 and P.total(pr) == 0, "buckets")
lab.check(S.pct(0.5) == " 50.0%" and S.event_of(lab.ProfileTotalIssues) == "instructions", "sampling")
lab.check(wpr.run(m, { "-profint" }, { quiet = true, process = p }).interval == 10000, "wpr")
A.expect_near(0.26, 0.25, 0.02, "near")
A.expect_error(function() error("x") end, nil, "any error")
`)
}
