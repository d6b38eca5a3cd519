package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/runerr"
)

func run(t *testing.T, src string, mod func(*Options)) Result {
	t.Helper()
	opt := Options{File: filepath.Join(t.TempDir(), "s.lua"), Source: []byte(src), Seed: 1}
	if mod != nil {
		mod(&opt)
	}
	return Run(context.Background(), opt)
}

func TestRunOutcomes(t *testing.T) {
	tests := []struct {
		name, src string
		status    Status
		kind      runerr.Kind
	}{
		{"passes", `local lab = require "proflab" lab.check(true, "a")`, StatusPassed, ""},
		{"no checks", `local x = 1`, StatusPassed, ""},
		{"failed check", `local lab = require "proflab" lab.check(false, "a") lab.check(true)`, StatusFailed, ""},
		{"raises", `error("x")`, StatusError, runerr.KindLua},
		{"syntax", `local = 1`, StatusError, runerr.KindLua},
	}
	for _, tc := range tests {
		r := run(t, tc.src, nil)
		if r.Status != tc.status || (tc.kind == "") != (r.Error == nil) || (r.Error != nil && r.Error.Kind != tc.kind) {
			t.Errorf("%s: status %s, error %+v", tc.name, r.Status, r.Error)
		}
		if r.Passed() != (tc.status == StatusPassed) {
			t.Errorf("%s: Passed() = %v", tc.name, r.Passed())
		}
	}
}

func TestRunGathersEverything(t *testing.T) {
	var live bytes.Buffer
	r := run(t, `local lab = require "proflab"
print("hello")
lab.check(lab.params.n == 8, "param")
lab.record{ n = lab.params.n, seed = lab.seed }
lab.check(false, "nope")`, func(o *Options) {
		o.Params = map[string]any{"n": int64(8)}
		o.Seed = 5
		o.Log = &live
	})
	if r.Status != StatusFailed || len(r.Checks) != 2 || !r.Checks[0].Passed || r.Checks[1].Passed {
		t.Fatalf("result = %+v", r)
	}
	if !strings.HasSuffix(r.Checks[1].Where, "s.lua:5") || r.Checks[1].Message != "nope" {
		t.Errorf("failed check = %+v", r.Checks[1])
	}
	if r.Log != "hello\n" || live.String() != "hello\n" {
		t.Errorf("log = %q, live = %q", r.Log, live.String())
	}
	if !reflect.DeepEqual(r.Records, map[string]any{"n": 8.0, "seed": 5.0}) {
		t.Errorf("records = %v", r.Records)
	}
	if r.Seed != 5 || r.Params["n"] != int64(8) || r.Timings.Wall <= 0 {
		t.Errorf("seed %d params %v timings %+v", r.Seed, r.Params, r.Timings)
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"local x = 0\nwhile true do x = x + 1 end",
		"local x = 0\npcall(function() while true do x = x + 1 end end)", // caught: still a timeout
		"while true do pcall(function() while true do end end) end",
	} {
		start := time.Now()
		r := run(t, src, func(o *Options) { o.Timeout = 100 * time.Millisecond })
		if time.Since(start) > 10*time.Second {
			t.Errorf("%q: took %s", src, time.Since(start))
		}
		if r.Error == nil || r.Error.Kind != runerr.KindTimeout || !strings.Contains(r.Error.Message, "scenario exceeded its time budget of 100ms (--timeout)") {
			t.Errorf("%q: error = %+v", src, r.Error)
		}
	}
	r := run(t, "local x = 0\nwhile true do x = x + 1 end", func(o *Options) { o.Timeout = 50 * time.Millisecond })
	if !strings.Contains(r.Error.Message, "s.lua:2: ") {
		t.Errorf("timeout message lacks where the script was: %q", r.Error.Message)
	}
}

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	r := Run(ctx, Options{File: "s.lua", Source: []byte("while true do end"), Timeout: -1})
	if r.Error == nil || r.Error.Kind != runerr.KindInterrupted {
		t.Errorf("error = %+v", r.Error)
	}
}

func TestRunMissingFile(t *testing.T) {
	r := Run(context.Background(), Options{File: filepath.Join(t.TempDir(), "nope.lua")})
	if r.Error == nil || r.Error.Kind != runerr.KindInput || !strings.Contains(r.Error.Message, "nope.lua") {
		t.Errorf("error = %+v", r.Error)
	}
}

func TestRunRequiresFromTheScenarioFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "_helper.lua"), []byte(`return { v = 3 }`), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.lua")
	if err := os.WriteFile(file, []byte(`local lab = require "proflab" lab.check(require("_helper").v == 3)`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := Run(context.Background(), Options{File: file}); !r.Passed() {
		t.Errorf("result = %+v", r)
	}
}

func TestParseSet(t *testing.T) {
	tests := []struct {
		in   string
		key  string
		want any
	}{
		{"n=8", "n", int64(8)},
		{"x=0x10", "x", int64(16)},
		{"r=0.25", "r", 0.25},
		{"on=true", "on", true},
		{"name=apic", "name", "apic"},
		{`q="quoted"`, "q", "quoted"},
		{`s="hello world"`, "s", "hello world"},
		{`e=""`, "e", ""},
		{"path=data/w-1.toml", "path", "data/w-1.toml"},
		{" k = 3", "k", int64(3)},
		{"eq=a=b", "eq", "a=b"},
		{"l=[1, 2]", "l", []any{int64(1), int64(2)}},
		{"d=1979-05-27", "d", "1979-05-27"},
		{"v=10.0.19041", "v", "10.0.19041"},
	}
	for _, tc := range tests {
		k, v, err := ParseSet(tc.in)
		if err != nil || k != tc.key || !reflect.DeepEqual(v, tc.want) {
			t.Errorf("ParseSet(%q) = %q, %#v, %v; want %q, %#v", tc.in, k, v, err, tc.key, tc.want)
		}
	}
	for _, bad := range []string{"novalue", "=3", " =x"} {
		if _, _, err := ParseSet(bad); err == nil {
			t.Errorf("ParseSet(%q): no error", bad)
		}
	}
	// a value that is not TOML and not a bare word is an error that shows
	// the flag and how to quote a string
	for bad, want := range map[string]string{
		"interval=1221ms": `--set interval=1221ms: "1221ms" is not a TOML value`,
		"b=[1,2":          `--set b=[1,2: "[1,2" is not a TOML value`,
		"a=":              `--set a=: the value is empty; for an empty string write --set 'a=""'`,
		"s=hello world":   `quote it: --set 's="hello world"'`,
	} {
		if _, _, err := ParseSet(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSet(%q) = %v, want %q", bad, err, want)
		}
	}
	m, err := ParseSets([]string{"a=1", "a=2", "b=x"})
	if err != nil || !reflect.DeepEqual(m, map[string]any{"a": int64(2), "b": "x"}) {
		t.Errorf("ParseSets = %v, %v", m, err)
	}
}

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.lua", "a.lua", "_helper.lua", "sub/c.lua", "sub/_h.lua", "_lib/x.lua", ".git/y.lua", "notes.txt"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Discover([]string{dir, filepath.Join(dir, "a.lua"), filepath.Join(dir, "_helper.lua")})
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, g := range got {
		r, _ := filepath.Rel(dir, g)
		rel = append(rel, filepath.ToSlash(r))
	}
	if want := []string{"a.lua", "b.lua", "sub/c.lua"}; !reflect.DeepEqual(rel, want) {
		t.Errorf("Discover = %v, want %v", rel, want)
	}
	if _, err := Discover([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing path is not an error")
	}
	if _, err := Discover([]string{filepath.Join(dir, "_lib")}); err != nil {
		t.Errorf("an explicit folder is searched even with a leading underscore: %v", err)
	}
	if _, err := Discover([]string{filepath.Join(dir, "sub", "_h.lua")}); err == nil || !strings.Contains(err.Error(), "no scenarios") {
		t.Errorf("only helpers: err = %v", err)
	}
}

func TestRunAllKeepsOrder(t *testing.T) {
	var runs []Options
	for i := 0; i < 12; i++ {
		src := `local lab = require "proflab" local n = 0 for i = 1, ` + strings.Repeat("9", 1+i%4) + ` do n = n + 1 end lab.record{ r = math.random(1000) }`
		runs = append(runs, Options{File: "s" + string(rune('a'+i)) + ".lua", Source: []byte(src), Seed: uint64(i)})
	}
	var order []string
	var recs []any
	RunAll(context.Background(), runs, 4, func(i int, r Result) {
		order = append(order, r.Scenario)
		recs = append(recs, r.Records["r"])
	})
	var serial []any
	RunAll(context.Background(), runs, 1, func(i int, r Result) { serial = append(serial, r.Records["r"]) })
	for i, r := range runs {
		if order[i] != r.File {
			t.Fatalf("order = %v", order)
		}
	}
	if !reflect.DeepEqual(recs, serial) {
		t.Errorf("results depend on the number of workers: %v vs %v", recs, serial)
	}
}

func TestWriteResult(t *testing.T) {
	r := run(t, `local lab = require "proflab" print("log line") lab.record{ m = 1.5, big = lab.u64(-1) } lab.check(false, "f")`, func(o *Options) {
		o.Params = map[string]any{"k": "v"}
	})
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteResult(dir, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scenario", "status", "seed", "params", "records", "checks", "error", "timings"} {
		if _, ok := got[k]; !ok {
			t.Errorf("result.json lacks %q:\n%s", k, b)
		}
	}
	if got["status"] != "failed" || !strings.Contains(string(b), `"big": 18446744073709551615`) || !strings.Contains(string(b), `"wall_seconds"`) {
		t.Errorf("result.json:\n%s", b)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, LogFile)); string(log) != "log line\n" {
		t.Errorf("log.txt = %q", log)
	}
}

func TestSummaryAndTotals(t *testing.T) {
	pass := Result{Scenario: "a.lua", Status: StatusPassed, Checks: []Check{{Passed: true}}}
	fail := Result{Scenario: "b.lua", Status: StatusFailed, Checks: []Check{{Passed: true}, {Passed: false, Where: "b.lua:3", Message: "m"}}}
	errd := Result{Scenario: "c.lua", Status: StatusError, Error: &Error{Kind: runerr.KindTimeout, Message: "c.lua:1: scenario exceeded"}}
	for r, want := range map[*Result]string{
		&pass: "PASS a.lua (1 check)",
		&fail: "FAIL b.lua (2 checks, 1 failed)",
		&errd: "FAIL c.lua (0 checks; timeout)",
	} {
		if got := Summary(*r); got != want {
			t.Errorf("Summary = %q, want %q", got, want)
		}
	}
	var b bytes.Buffer
	WriteTestResult(&b, fail, false)
	if b.String() != "FAIL b.lua (2 checks, 1 failed)\n    b.lua:3: m\n" {
		t.Errorf("WriteTestResult = %q", b.String())
	}
	var tot Totals
	tot.Add(pass)
	tot.Add(fail)
	tot.Add(errd)
	if tot.String() != "1 passed, 2 failed" {
		t.Errorf("totals = %s", tot)
	}
}

// Without a configuration a run uses the shipped HALs in-process, so a
// simulated run raises interrupts as it would through the plugins.
func TestRunWithoutSetupSamples(t *testing.T) {
	r := run(t, `local lab = require "proflab"
local P = require "profile"
local m = lab.machine{ cpus = 1 }
local p = m:process{}
local pr = P.create_and_start(p, { base = 0x400000, size = 0x100 })
local r = m:run{ duration_us = 100000, workload = { process = p, functions = { { name = "f", base = 0x400000, size = 0x100, weight = 1 } } } }
lab.check(r.interrupts.ProfileTime ~= nil and r.interrupts.ProfileTime > 20, "timer interrupts: " .. tostring(r.interrupts.ProfileTime))
lab.check(P.total(pr) > 20, "the profile counted")
lab.check(m:hal_sources()[1].hal == "apic", "the shipped apic HAL")`, nil)
	if !r.Passed() {
		t.Fatalf("%+v %v", r.Checks, r.Error)
	}
}

// A scenario that fails with an error keeps, in result.json, the checks it
// made before, and the error's file:line on its own.
func TestFailingScenarioKeepsItsChecks(t *testing.T) {
	r := run(t, "local lab = require \"proflab\"\nlab.check(true, \"first\")\nlab.check(1 == 2, \"second\")\nlocal t = nil\nprint(t.x)\n", nil)
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteResult(dir, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Status string
		Checks []struct {
			Passed  bool
			Where   string
			Message string
		}
		Error struct{ Kind, Where, Message string }
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "error" || len(got.Checks) != 2 || !got.Checks[0].Passed || got.Checks[1].Passed ||
		!strings.HasSuffix(got.Checks[1].Where, "s.lua:3") {
		t.Errorf("status %q, checks %+v: want both checks kept", got.Status, got.Checks)
	}
	if got.Error.Kind != "lua" || !strings.HasSuffix(got.Error.Where, "s.lua:5") {
		t.Errorf("error %+v: want its where at s.lua:5", got.Error)
	}
}

// s:events over a session too large for the memory budget stops at the
// scenario's line, naming the call and what to use instead, rather than
// being abandoned inside it with no line.
func TestEventsOverTheBudgetNameTheirLine(t *testing.T) {
	if testing.Short() {
		t.Skip("a 30 s logger run")
	}
	r := run(t, `local lab = require "proflab"
local P = require "profile"
local m = lab.machine{ cpus = 4 }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local s = m:start_kernel_logger{ profile = true }
local pr = P.create_and_start(p, { base = 0x30000, size = 0x100, bucket = 4 })
p:NtSetIntervalProfile(1221, lab.ProfileTime)
m:run{ duration_us = 30000000, workload = { process = p, functions = { { name = "f", base = 0x30000, size = 0x100, weight = 1 } } } }
local all = s:events()
`, func(o *Options) { o.Memory = 64 << 20 })
	if r.Error == nil || r.Error.Kind != "memory" {
		t.Fatalf("error %+v, want the memory budget", r.Error)
	}
	for _, want := range []string{"s.lua:9: s:events: scenario exceeded its memory budget of 64 MiB", "events as one table", "s:each"} {
		if !strings.Contains(r.Error.Message, want) {
			t.Errorf("message %q lacks %q", r.Error.Message, want)
		}
	}
	if strings.Contains(r.Error.Message, "abandoned") {
		t.Errorf("the run was abandoned: %s", r.Error.Message)
	}
}

// A run abandoned inside a binding names the binding.
func TestAbandonedNamesTheCall(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&luavm.MemoryBudgetError{Limit: 64 << 20})
	e := abandonedError(context.Background(), Options{}, ctx, "s:events")
	if !strings.Contains(e.Message, "scenario exceeded its memory budget of 64 MiB (--memory); the scenario was inside s:events, a builtin call that could not be interrupted, and was abandoned 3s later") {
		t.Errorf("message %q", e.Message)
	}
}

// UnreadParams are the parameters the scenario never read, sorted.
func TestUnreadParams(t *testing.T) {
	r := run(t, `local lab = require "proflab"
local _ = lab.params.interval`, func(o *Options) {
		o.Params = map[string]any{"interval": int64(1221), "intervall": int64(5), "buckets": int64(4)}
	})
	if got := r.UnreadParams(); !reflect.DeepEqual(got, []string{"buckets", "intervall"}) {
		t.Errorf("UnreadParams = %v, want [buckets intervall]", got)
	}
	if got := run(t, `local x = 1`, nil).UnreadParams(); got != nil {
		t.Errorf("no parameters: UnreadParams = %v", got)
	}
}
