package luart

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestStatusHelpers(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`lab.status_name(0xC0000061)`, "STATUS_PRIVILEGE_NOT_HELD"},
		{`lab.status_name(lab.STATUS_SUCCESS)`, "STATUS_SUCCESS"},
		{`lab.status_name(0xC0001234)`, "0xC0001234"},
		{`lab.status_name(-1073741727)`, "STATUS_PRIVILEGE_NOT_HELD"}, // the signed view of 0xC0000061
		{`lab.status_name(lab.u64(0xC0000061))`, "STATUS_PRIVILEGE_NOT_HELD"},
		{`lab.NT_SUCCESS(0)`, "true"},
		{`lab.NT_SUCCESS(0x80000005)`, "false"},
		{`lab.NT_SUCCESS(0x40000000)`, "true"},
		{`lab.NT_SUCCESS(lab.STATUS_ACCESS_VIOLATION)`, "false"},
		{`lab.win32_name(1314)`, "ERROR_PRIVILEGE_NOT_HELD"},
		{`lab.win32_name(4242)`, "4242"},
		{`lab.bugcheck_name(0x50)`, "PAGE_FAULT_IN_NONPAGED_AREA"},
		{`lab.bugcheck_name(0x1234)`, "0x1234"},
	}
	for _, tc := range tests {
		if got := eval(t, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
	wantErr(t, `lab.status_name("STATUS_SUCCESS")`, "lab.status_name: argument #1 (status)", "expected a number or a u64")
	wantErr(t, `lab.NT_SUCCESS(0.5)`, "lab.NT_SUCCESS", "not an integer")
}

func TestConstantsOnLab(t *testing.T) {
	tests := map[string]string{
		"ProfileTime": "0", "ProfileAlignmentFixup": "1", "ProfileTotalIssues": "2", "ProfileMaximum": "24",
		"ProfileCacheMisses": "10", "ProfileBranchMispredictsRetired": "31",
		"STATUS_SUCCESS": "0", "STATUS_PRIVILEGE_NOT_HELD": "3221225569", "STATUS_ACCESS_VIOLATION": "3221225477",
		"STATUS_INVALID_PARAMETER_7":            "3221225717",
		"SystemProcessorPerformanceInformation": "8", "SystemPerformanceTraceInformation": "31",
		"SystemProcessorProfileControlArea": "129", "SystemProcessorPerformanceInformationEx": "141",
		"TraceSampledProfileIntervalInfo": "5", "TraceProfileSourceListInfo": "7", "TraceSystemTraceEnableFlagsInfo": "4",
		"EventTraceProfileSourceListInformation": "13", "EventTraceTimeProfileInformation": "3",
		"PERFINFO_LOG_TYPE_SAMPLED_PROFILE": "3886", "PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL": "3912",
		"PERFINFO_LOG_TYPE_CONTEXTSWAP": "1316",
		"EVENT_TRACE_FLAG_PROFILE":      "16777216", "PERF_PROFILE": "536870914", "PERF_PMC_PROFILE": "536871936",
		"ERROR_SUCCESS": "0", "ERROR_BAD_LENGTH": "24", "ERROR_NOT_SUPPORTED": "50", "ERROR_INVALID_PARAMETER": "87",
		"ERROR_NOACCESS": "998", "ERROR_PRIVILEGE_NOT_HELD": "1314", "ERROR_INCORRECT_SIZE": "1462",
		"IRQL_NOT_LESS_OR_EQUAL": "10", "PAGE_FAULT_IN_NONPAGED_AREA": "80", "KMODE_EXCEPTION_NOT_HANDLED": "30",
		"PROFILE_CONTROL": "1", "PROCESS_QUERY_INFORMATION": "1024", "PROCESS_ALL_ACCESS": "2097151",
		"SeSystemProfilePrivilege": "11", "SeProfileSingleProcessPrivilege": "13",
		"SE_SYSTEM_PROFILE_PRIVILEGE": "11", "EVENT_TRACE_GROUP_PERFINFO": "3840",
		"NtCurrentProcess":            "-1",
		"HalProfileSourceInformation": "1", "HalProfileSourceInterval": "0",
	}
	for name, want := range tests {
		if got := eval(t, "lab."+name); got != want {
			t.Errorf("lab.%s = %s, want %s", name, got, want)
		}
	}
	// Go spellings of values exported under their Windows names stay off lab.
	for _, name := range []string{"StatusSuccess", "ErrorBadLength", "VendorIntel"} {
		if got := evalErr(t, "local x = lab."+name); !strings.Contains(got, "has no "+name) {
			t.Errorf("lab.%s: %q, want an error", name, got)
		}
	}
}

// A name the proflab module or a library module does not have is an
// error naming it and the closest names, never a nil that a service
// would read as 0 (ProfileTime).
func TestMisspeltNamesAreErrors(t *testing.T) {
	for _, tt := range []struct{ stmt, want string }{
		{"local s = lab.ProfileTme", "t.lua:2: the proflab module (lab) has no ProfileTme; did you mean ProfileTime?"},
		{"lab.recrod{ x = 1 }", "has no recrod; did you mean record?"},
		{"local s = lab.STATUS_SUCESS", "did you mean STATUS_SUCCESS"},
		{"local s = lab.NoSuchThingAtAll", "the proflab module (lab) has no NoSuchThingAtAll"},
		{"local s = lab[1]", "has no field 1 (a number)"},
		{"local P = require 'profile'\nlocal x = P.totl", `t.lua:3: the library module "profile" has no totl; did you mean total?`},
		{"local S = require 'stats'\nS.maen({1})", `the library module "stats" has no maen; did you mean mean?`},
	} {
		if got := evalErr(t, tt.stmt); !strings.Contains(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.stmt, got, tt.want)
		}
	}
	// what the scenario sets, and rawget, still work
	if got := eval(t, "(function() lab.mine = 3; return lab.mine + (rawget(lab, 'Nope') or 0) end)()"); got != "3" {
		t.Errorf("a field the scenario set: %s", got)
	}
	if got := evalErr(t, "local P = require 'profile'\nP.extra = 1\nassert(P.extra == 1)"); got != "" {
		t.Errorf("a field the scenario set on a library module: %s", got)
	}
}

// lab.log writes a line to the run's log as print does (stable names,
// u64 values as text), and the sandbox's refusals point at lab.log and
// lab.params.
func TestLogAndSandboxAdvice(t *testing.T) {
	rt, log := newTestRuntime(t, Config{})
	if err := rt.Exec("t.lua", []byte(`local lab = require "proflab" print("p", 1) lab.log("x", lab.u64(16), {}, nil)`)); err != nil {
		t.Fatal(err.Detail())
	}
	if got, want := log.String(), "p\t1\nx\t0x10\ttable: 0x00000001\tnil\n"; got != want {
		t.Errorf("log = %q, want %q", got, want)
	}
	wantErr(t, `os.exit(1)`, "t.lua:2: os is not available in a proflab scenario",
		"(print and lab.log write to the run's log; lab.params holds the run's parameters; require loads modules)")
}

func TestCheck(t *testing.T) {
	rt, _ := newTestRuntime(t, Config{})
	src := "local lab = require 'proflab'\n" +
		"lab.check(true, 'first')\n" +
		"local r = lab.check(false, 'second')\n" +
		"lab.check(nil)\n" +
		"lab.check(0, lab.u64(5))\n" +
		"assert(r == false and lab.check(1) == true)\n"
	if err := rt.Exec("s.lua", []byte(src)); err != nil {
		t.Fatal(err.Detail())
	}
	want := []Check{
		{Passed: true, Where: "s.lua:2", Message: "first"},
		{Passed: false, Where: "s.lua:3", Message: "second"},
		{Passed: false, Where: "s.lua:4", Message: ""},
		{Passed: true, Where: "s.lua:5", Message: "0x5"},
		{Passed: true, Where: "s.lua:6", Message: ""},
	}
	if got := rt.Checks(); !reflect.DeepEqual(got, want) {
		t.Errorf("checks = %+v\nwant %+v", got, want)
	}
}

func TestCheckFromLibraryPointsAtTheScenario(t *testing.T) {
	rt, _ := newTestRuntime(t, Config{})
	src := "local A = require 'assert'\n\nA.expect_eq(1, 2, 'x')\nlocal function helper() A.expect_eq(1, 1) end\nhelper()\n"
	if err := rt.Exec("s.lua", []byte(src)); err != nil {
		t.Fatal(err.Detail())
	}
	got := rt.Checks()
	if len(got) != 2 || got[0].Where != "s.lua:3" || got[1].Where != "s.lua:4" {
		t.Errorf("checks = %+v, want them at s.lua:3 and s.lua:4", got)
	}
}

func TestParamsAndSeed(t *testing.T) {
	rt, _ := newTestRuntime(t, Config{Seed: 9, Params: map[string]any{
		"interval": int64(8), "name": "apic", "on": true, "ratio": 0.5,
		"list": []any{int64(1), "two"}, "nested": map[string]any{"k": int64(3)},
		"big": uint64(0xFFFFF80000001000),
	}})
	src := `local lab = require "proflab"
		local p = lab.params
		assert(p.interval == 8 and p.name == "apic" and p.on == true and p.ratio == 0.5)
		assert(p.list[1] == 1 and p.list[2] == "two" and p.nested.k == 3)
		assert(tostring(p.big) == "0xFFFFF80000001000")
		assert(lab.seed == 9)`
	if err := rt.Exec("s.lua", []byte(src)); err != nil {
		t.Fatal(err.Detail())
	}
	rt2, _ := newTestRuntime(t, Config{})
	if err := rt2.Exec("s.lua", []byte(`assert(next(require("proflab").params) == nil)`)); err != nil {
		t.Fatal("params should be an empty table:", err.Detail())
	}
}

func TestRecord(t *testing.T) {
	rt, _ := newTestRuntime(t, Config{})
	src := `local lab = require "proflab"
		lab.record{ a = 1, b = "x", c = true }
		lab.record{ a = 2, d = { 1, 2, 3 }, e = { k = lab.u64(-1) }, f = {} }`
	if err := rt.Exec("s.lua", []byte(src)); err != nil {
		t.Fatal(err.Detail())
	}
	want := map[string]any{
		"a": 2.0, "b": "x", "c": true, "d": []any{1.0, 2.0, 3.0},
		"e": map[string]any{"k": uint64(1<<64 - 1)}, "f": []any{},
	}
	if got := rt.Records(); !reflect.DeepEqual(got, want) {
		t.Errorf("records = %#v\nwant %#v", got, want)
	}
	wantErr(t, `lab.record{ f = print }`, "lab.record", `field "f"`, "function cannot be recorded")
	wantErr(t, `lab.record{ 1, 2 }`, "keys must be strings")
	wantErr(t, `lab.record{ x = 0/0 }`, "NaN")
	wantErr(t, `lab.record{ x = { 1, k = 2 } }`, "mixes")
	// of several bad fields, the first in sorted order, every run (a
	// sweep's results must not depend on Go's map order)
	for range 10 {
		wantErr(t, `lab.record{ zeta = print, alpha = print, mid = print }`, `field "alpha"`)
		wantErr(t, `lab.machine{ hal_settings = { apic = { zeta = 1.5, alpha = 2.5 } } }`, "apic.alpha = 2.5")
	}
	wantErr(t, `local t = {} t.t = t lab.record{ x = t }`, "nested")
	wantErr(t, `lab.record(5)`, "expected a table")
	// A bad record leaves the earlier ones as they were.
	rt2, _ := newTestRuntime(t, Config{})
	_ = rt2.Exec("s.lua", []byte(`local lab = require "proflab" lab.record{ a = 1 } lab.record{ a = 2, z = print }`))
	if got := rt2.Records(); !reflect.DeepEqual(got, map[string]any{"a": 1.0}) {
		t.Errorf("records after a bad record = %v", got)
	}
}

// The runtime knows which parameters the scenario read: by field, and all
// of them through pairs or next; writes and missing names work as on a
// table.
func TestParamsRead(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"local x = lab.params.a", "[a]"},
		{"local x = lab.params.a or lab.params.nope", "[a]"},
		{"for k in pairs(lab.params) do end", "[a b c]"},
		{"local k = next(lab.params)", "[a b c]"},
		{"lab.params.c = 4; assert(lab.params.c == 4)", "[c]"},
		{"local t = lab.params", "[]"},
	} {
		rt, _ := newTestRuntime(t, Config{Params: map[string]any{"a": int64(1), "b": "x", "c": 2.5}})
		if err := rt.Exec("t.lua", []byte("local lab = require 'proflab'\n"+tt.src)); err != nil {
			t.Fatalf("%s: %v", tt.src, err.Detail())
		}
		if got := fmt.Sprint(rt.ParamsRead()); got != tt.want {
			t.Errorf("%s: read %s, want %s", tt.src, got, tt.want)
		}
	}
}

// A session's events are read whole, a page at a time (s:events with
// first/count and filters), one by one (s:each) or counted (s:count), and
// every way agrees.
func TestSessionEventsEachCount(t *testing.T) {
	rt, log := newTestRuntime(t, Config{Seed: 3})
	src := `local lab = require "proflab"
local m = lab.machine{ cpus = 2, hal = { "apic" } }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local s = m:start_kernel_logger{ profile = true }
p:NtSetIntervalProfile(1221, lab.ProfileTime)
m:run{ duration_us = 20000, workload = { process = p, functions = { { name = "f", base = 0x10000, size = 0x100, weight = 1 } } } }
local all = s:events()
local SP = lab.PERFINFO_LOG_TYPE_SAMPLED_PROFILE
local n, cpu1, lastT = 0, 0, -1
for e in s:each{ hook = SP } do
  n = n + 1
  assert(e.hook == SP and e.time >= lastT)
  lastT = e.time
end
for e in s:each{ hook = SP, cpu = 1 } do cpu1 = cpu1 + 1 end
local sp = 0
for _, e in ipairs(all) do if e.hook == SP then sp = sp + 1 end end
local page = s:events{ hook = SP, first = 3, count = 5 }
local whole = s:events{ hook = SP }
assert(#page == 5 and page[1].time == whole[3].time and page[5].time == whole[7].time, "a page is a slice of the matches")
local mid = whole[math.floor(#whole / 2)].time
print(#all, s:count(), n, sp, s:count{ hook = SP }, cpu1, s:count{ hook = SP, cpu = 1 },
  s:count{ hook = SP, to = mid } + s:count{ hook = SP, from = mid + 1 } == n, #s:events{ count = 0 })
`
	if err := rt.Exec("t.lua", []byte(src)); err != nil {
		t.Fatal(err.Detail())
	}
	f := strings.Fields(log.String())
	if len(f) != 9 || f[0] != f[1] || f[2] != f[3] || f[3] != f[4] || f[5] != f[6] || f[7] != "true" || f[8] != "0" || f[2] == "0" || f[5] == "0" {
		t.Errorf("events %s, count %s; each %s, by hand %s, count %s; cpu 1 %s, count %s; time split %s; count 0 → %s", f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8])
	}
}

// m:run says which interval each source had: a set refused for want of
// SeSystemProfilePrivilege (6.2 on) leaves the default in force, and the
// run's intervals show it; a granted set shows the new interval.
func TestRunRecordsTheIntervalsInForce(t *testing.T) {
	rt, log := newTestRuntime(t, Config{})
	src := `local lab = require "proflab"
local m = lab.machine{ version = "10.0.19041", cpus = 2, hal = { "apic" } }
local w = function(p) return { process = p, functions = { { name = "f", base = 0x10000, size = 0x100, weight = 1 } } } end
local weak = m:process{}
local st = weak:NtSetIntervalProfile(5000, lab.ProfileTime)
m:start_kernel_logger{ profile = true }
local r1 = m:run{ duration_us = 2000, workload = w(weak) }
local strong = m:process{ privileges = { "SeSystemProfilePrivilege" } }
strong:NtSetIntervalProfile(5000, lab.ProfileTime)
local r2 = m:run{ duration_us = 2000, workload = w(strong) }
print(lab.status_name(st), r1.intervals.ProfileTime, r2.intervals.ProfileTime)
`
	if err := rt.Exec("t.lua", []byte(src)); err != nil {
		t.Fatal(err.Detail())
	}
	if got := strings.TrimSpace(log.String()); got != "STATUS_PRIVILEGE_NOT_HELD\t10000\t5000" {
		t.Errorf("got %q: the refused set's run must show the default 10000, the granted one 5000", got)
	}
}

// pairs visits the proflab module's fields in one order in every run.
func TestLabFieldsInOneOrder(t *testing.T) {
	var first string
	for i := range 10 {
		rt, log := newTestRuntime(t, Config{Seed: 1})
		if err := rt.Exec("o.lua", []byte(`local lab = require "proflab"
local ks = {} for k in pairs(lab) do ks[#ks + 1] = k end print(table.concat(ks, " "))`)); err != nil {
			t.Fatal(err.Detail())
		}
		if i == 0 {
			first = log.String()
			if want := "NtCurrentProcess NT_SUCCESS arguments bugcheck_name check log machine options record sampling_test status_name suggest tonumber u64 win32_name seed\n"; first != want {
				t.Errorf("fields %q, want %q", first, want)
			}
		} else if log.String() != first {
			t.Fatalf("run %d visits lab's fields in another order:\n%s\nthe first:\n%s", i, log.String(), first)
		}
	}
}
