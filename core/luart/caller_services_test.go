package luart

import (
	"errors"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// profileSetup is Lua that makes m, p (with SeSystemProfilePrivilege), a
// bucket buffer buf and a started global profile h over 0x400000..+0x10000
// with 4 KB buckets.
const profileSetup = `
local m = lab.machine{ cpus = 2 }
local p = m:process{ privileges = {"SeSystemProfilePrivilege"} }
local buf = p:alloc(0x1000)
local hp = p:alloc(8)
local st = p:NtCreateProfile(hp, nil, 0x400000, 0x10000, 12, buf, 0x1000, lab.ProfileTime, 3)
lab.check(st == lab.STATUS_SUCCESS, "create: " .. lab.status_name(st))
local h = p:read_u64(hp)
lab.check(p:NtStartProfile(h) == lab.STATUS_SUCCESS, "start")
`

func TestServices(t *testing.T) {
	labScript(t, profileSetup+`
lab.check(p:NtStartProfile(h) == lab.STATUS_PROFILING_NOT_STOPPED, "second start")
lab.check(p:NtStopProfile(h) == lab.STATUS_SUCCESS, "stop")
lab.check(p:NtStopProfile(h) == lab.STATUS_PROFILING_NOT_STARTED, "second stop")
lab.check(p:NtClose(h) == lab.STATUS_SUCCESS, "close")
lab.check(p:NtClose(h) == lab.STATUS_INVALID_HANDLE, "close twice")
local iv = p:alloc(4)
lab.check(p:NtQueryIntervalProfile(lab.ProfileTime, iv) == lab.STATUS_SUCCESS and p:read_u32(iv) == 10000, "query ProfileTime")
lab.check(p:NtSetIntervalProfile(20000, lab.ProfileTime) == lab.STATUS_SUCCESS, "set (privileged)")
p:NtQueryIntervalProfile(lab.ProfileTime, iv)
lab.check(p:read_u32(iv) == 20000, "set took effect")
local q = m:process{}
lab.check(q:NtSetIntervalProfile(10000, lab.ProfileTime) == lab.STATUS_PRIVILEGE_NOT_HELD, "unprivileged set (6.2+)")
lab.check(p:NtQueryIntervalProfile(lab.ProfileTime, 0x10) == lab.STATUS_ACCESS_VIOLATION, "bad pointer from user mode is a status")
-- NtCurrentProcess: -1 widened to the handle's width
local hp2, buf2 = p:alloc(8), p:alloc(0x1000)
local st = p:NtCreateProfile(hp2, lab.NtCurrentProcess, 0x400000, 0x10000, 12, buf2, 0x1000, lab.ProfileTime, 3)
lab.check(st == lab.STATUS_SUCCESS, "NtCurrentProcess: " .. lab.status_name(st))
-- a handle from open_process
local hq = p:open_process(q)
lab.check(type(hq) == "number" and hq ~= 0, "open_process")
local hp3, buf3 = p:alloc(8), p:alloc(0x1000)
st = p:NtCreateProfile(hp3, hq, 0x400000, 0x10000, 12, buf3, 0x1000, lab.ProfileTime, 3)
lab.check(st == lab.STATUS_SUCCESS, "profile of another process: " .. lab.status_name(st))
local hq2 = p:open_process(q, 0)
st = p:NtCreateProfile(hp3, hq2, 0x400000, 0x10000, 12, buf3, 0x1000, lab.ProfileTime, 3)
lab.check(st == lab.STATUS_ACCESS_DENIED, "a handle without PROCESS_QUERY_INFORMATION: " .. lab.status_name(st))
-- missing trailing arguments are 0: BufferSize 0
st = p:NtCreateProfile(hp3, nil, 0x400000, 0x10000, 12, buf3)
lab.check(st == lab.STATUS_INVALID_PARAMETER_7, "missing BufferSize: " .. lab.status_name(st))
-- Ex with a group affinity
local ga = p:alloc(16)
p:write_u64(ga, 3) p:write_u16(ga + 8, 0)
st = p:NtCreateProfileEx(hp3, nil, 0x400000, 0x10000, 12, buf3, 0x1000, lab.ProfileTime, 1, ga)
lab.check(st == lab.STATUS_SUCCESS, "NtCreateProfileEx: " .. lab.status_name(st))
-- Trace functions return Win32 codes
local ti = p:alloc(8)
lab.check(p:TraceQueryInformation(0, lab.TraceSampledProfileIntervalInfo, ti, 4, 0) == lab.ERROR_BAD_LENGTH, "Trace* bad length")
p:write_u32(ti, lab.ProfileTime)
lab.check(p:TraceQueryInformation(0, lab.TraceSampledProfileIntervalInfo, ti, 8, 0) == lab.ERROR_SUCCESS, "Trace* query")
lab.check(p:read_u32(ti + 4) == 20000, "Trace* reads the interval")
-- threads make the same calls, on their processor
local t1 = p:create_thread{ affinity = 2 }
lab.check(t1:NtQueryIntervalProfile(lab.ProfileTotalIssues, iv) == lab.STATUS_SUCCESS, "t:NtQueryIntervalProfile")
local log = m:hal_log()
lab.check(log[#log].cpu == 1 and log[#log].source == lab.ProfileTotalIssues, "the thread's call ran on processor 1")
`)
}

func TestServicesPerVersion(t *testing.T) {
	labScript(t, `
local m = lab.machine{ version = "3.10" }
local p = m:process{}
local iv = p:alloc(4)
lab.check(p:NtQueryIntervalProfile(iv) == lab.STATUS_SUCCESS, "3.10: NtQueryIntervalProfile(IntervalPtr)")
local ok, err = pcall(p.NtQueryIntervalProfile, p, lab.ProfileTime, iv)
lab.check(not ok and tostring(err):find("1 parameter") ~= nil, "3.10 takes one argument: " .. tostring(err))
ok, err = pcall(p.NtCreateProfileEx, p)
lab.check(not ok and tostring(err):find("has no NtCreateProfileEx") ~= nil, "3.10 lacks NtCreateProfileEx: " .. tostring(err))
ok, err = pcall(p.NtCreateProfile, p, 0, 0, 0, 0, 0, 0, 0, 0)
lab.check(not ok and tostring(err):find("NtCreateProfile%(ProfileHandle") ~= nil, "8 arguments on 3.10: " .. tostring(err))
ok, err = pcall(p.TraceQueryInformation, p)
lab.check(not ok, "3.10 lacks the Trace functions")
`)
	bad := []struct{ src, want string }{
		{`local p = lab.machine{}:process{} p:NtClose(2^53)`, `p:NtClose: argument #1 (Handle): 9007199254740992 is too large to be exact as a Lua number; use lab.u64("0x…")`},
		{`local p = lab.machine{}:process{} p:NtClose(0.5)`, "argument #1 (Handle): 0.5 is not an integer"},
		{`local p = lab.machine{}:process{} p:NtClose("4")`, `argument #1 (Handle): expected a number or a u64, got the string "4"`},
		{`local p = lab.machine{}:process{} p:NtStartProfile(4, 5)`, "declares 1 parameter, got 2 arguments: NtStartProfile(ProfileHandle)"},
		{`local p = lab.machine{ version = "5.1" }:process{} p:NtCreateProfileEx()`, "Windows 5.1 x86 has no NtCreateProfileEx"},
	}
	for _, tc := range bad {
		wantLabError(t, tc.src, tc.want)
	}
}

func TestArgumentsAreWidened(t *testing.T) {
	// On x86 a pointer is 32 bits: a u64 above 4 GB is truncated as the
	// calling convention would, and -1 is 0xFFFFFFFF.
	labScript(t, `
local m = lab.machine{ arch = "x86", version = "6.1" }
local p = m:process{}
local iv = p:alloc(4)
lab.check(p:NtQueryIntervalProfile(lab.ProfileTime, lab.u64("0x100000000") + iv) == lab.STATUS_SUCCESS, "truncated pointer")
lab.check(p:read_u32(iv) == 39063, "written at the truncated address")
lab.check(p:NtQueryIntervalProfile(lab.u64("0x100000000") + lab.ProfileTime, iv) == lab.STATUS_SUCCESS, "truncated source")
`)
}

func TestInterruptAndBugCheck(t *testing.T) {
	labScript(t, profileSetup+`
-- processor performance information: InterruptCount at 0x28 of each 0x30-byte element (x64)
local spi = p:alloc(0x60)
local function count(cpu)
  local st = p:NtQuerySystemInformation(lab.SystemProcessorPerformanceInformation, spi, 0x60, 0)
  lab.check(st == lab.STATUS_SUCCESS, "query 0x08: " .. lab.status_name(st))
  return p:read_u32(spi + 0x30 * cpu + 0x28)
end
local before = count(1)
lab.check(m:interrupt{ cpu = 1, ip = 0x401000, process = p } == true, "interrupt returns true")
lab.check(count(1) == before + 1, "InterruptCount rises by one")
lab.check(p:read_u32s(buf, 2)[2] == 1, "bucket 1 counted")
lab.check(m:interrupt{ ip = 0x402000 } == true, "idle context, kernel mode by default")
lab.check(m:interrupt{ ip = 0x402000, source = lab.ProfileTotalIssues, process = p, mode = "kernel", isr = true, dpc = true }, "any source and mode")
lab.check(m:bugcheck() == nil, "no bug check yet")
-- a kernel-mode caller's bad pointer faults: bug check 0x50
local k = m:kernel{}
local st, bc = k:NtQueryIntervalProfile(lab.ProfileTime, 0x1234)
lab.check(st == nil and bc.code == lab.PAGE_FAULT_IN_NONPAGED_AREA and bc.name == "PAGE_FAULT_IN_NONPAGED_AREA", "the call bug-checks")
lab.check(#bc.params == 4 and bc.params[1] == 0x1234, "parameters")
local b = m:bugcheck()
lab.check(b and b.code == 0x50 and b.name == "PAGE_FAULT_IN_NONPAGED_AREA", "m:bugcheck()")
-- after a bug check: running calls raise naming it, inspection works
for name, f in pairs{
  service = function() return p:NtStopProfile(h) end,
  interrupt = function() return m:interrupt{ ip = 0x401000 } end,
  run = function() return m:run{ duration_us = 1, workload = { process = p, functions = { { name = "f", base = 0x401000, size = 0x100, weight = 1 } } } } end,
  write = function() return p:write_u32(buf, 1) end,
  process = function() return m:process{} end,
} do
  local ok, err = pcall(f)
  lab.check(not ok and tostring(err):find("PAGE_FAULT_IN_NONPAGED_AREA") ~= nil, name .. " after the bug check: " .. tostring(err))
end
lab.check(p:read_u32(buf + 4) == 1, "reads still work")
lab.check(#m:hal_log() > 0 and m:cpu_count() == 2, "inspection still works")
lab.check(#m:hal_sources() > 0, "hal_sources still works")
`)
	bad := []struct{ src, want string }{
		{`lab.machine{}:interrupt{}`, `field "ip": is required`},
		{`lab.machine{}:interrupt{ ip = 1, cpu = 4 }`, `field "cpu": 4 is out of range`},
		{`lab.machine{}:interrupt{ ip = 1, mode = "both" }`, `field "mode"`},
		{`lab.machine{}:interrupt{ ip = 1, process = 5 }`, `field "process": expected a process`},
		{`lab.machine{}:interrupt{ ip = 1, process = lab.machine{}:process{} }`, "another machine"},
		{`lab.machine{}:interrupt{ ip = 1, irq = 3 }`, `unknown field "irq"`},
	}
	for _, tc := range bad {
		wantLabError(t, tc.src, tc.want)
	}
}

func TestInterruptBugCheckReturnsFalse(t *testing.T) {
	// The Windows 8 inclusive-end overrun: an ip at the range's limit
	// writes one ULONG past a buffer that ends on a page: bug check 0x0A.
	labScript(t, `
local m = lab.machine{ version = "6.2" }
local p = m:process{ privileges = {"SeSystemProfilePrivilege"} }
local buf, hp = p:alloc(64), p:alloc(8)
-- 16 buckets of 4 KB: 64 bytes of counters, at the end of its page
local page = p:alloc(0x1000)
local counters = page + 0x1000 - 64
lab.check(p:NtCreateProfile(hp, nil, 0x400000, 0x10000, 12, counters, 64, lab.ProfileTime, 1) == lab.STATUS_SUCCESS, "create")
lab.check(p:NtStartProfile(p:read_u64(hp)) == lab.STATUS_SUCCESS, "start")
local ok, bc = m:interrupt{ ip = 0x400000 + 0x10000, process = p }
lab.check(ok == false and bc and bc.code == lab.IRQL_NOT_LESS_OR_EQUAL, "false, bugcheck: " .. tostring(bc and bc.name))
`)
}

func TestHALSourcesAndLog(t *testing.T) {
	labScript(t, `
local m = lab.machine{ cpus = 2, hal = {"apic", "pmu"} }
local srcs = m:hal_sources()
local first = srcs[1]
lab.check(first.source == lab.ProfileTime and first.name == "ProfileTime" and first.hal == "apic", "ProfileTime first")
lab.check(first.supported == true and first.interval == 10000 and first.min == 1221 and first.max == 1000000 and first.default == 10000, "bounds")
lab.check(type(first.description) == "string", "description")
for i = 2, #srcs do lab.check(srcs[i].source > srcs[i - 1].source, "source order") end
lab.check(#m:hal_log() == 0, "hal_sources is not in the log")
local p = m:process{ privileges = {"SeSystemProfilePrivilege"} }
lab.check(p:NtSetIntervalProfile(5000, lab.ProfileTotalIssues) == lab.STATUS_SUCCESS, "set")
local iv = p:alloc(4)
p:NtQueryIntervalProfile(lab.ProfileTotalIssues, iv)
p:NtQueryIntervalProfile(lab.ProfileLoadInstructions, iv)
local log = m:hal_log()
local sets, queries = 0, 0
for _, r in ipairs(log) do
  if r.call == "set" then
    sets = sets + 1
    lab.check(r.class == 0 and r.interval == 5000 and r.supported == nil and r.hal == "pmu", "set row")
  elseif r.call == "query" then
    queries = queries + 1
    lab.check(r.class == 1 and r.supported ~= nil, "query row")
    if r.source == lab.ProfileLoadInstructions then
      lab.check(r.hal == nil and r.supported == false, "a source no HAL owns: hal is nil")
    end
  end
end
lab.check(sets == 2, "one set row per processor: " .. sets)
lab.check(queries >= 2, "query rows")
-- start/stop rows carry neither class nor interval
local s = m:start_kernel_logger{ profile = true }
local starts = 0
for _, r in ipairs(m:hal_log()) do
  if r.call == "start" then
    starts = starts + 1
    lab.check(r.class == nil and r.interval == nil and r.supported == nil and r.hal == "apic", "start row")
  end
end
lab.check(starts == 2, "the logger starts ProfileTime on every processor")
local cpus = {}
for _, r in ipairs(m:hal_log()) do if r.call == "start" then cpus[#cpus + 1] = r.cpu end end
lab.check(cpus[1] == 0 and cpus[2] == 1, "ascending processors within a call")
`)
}

func TestKernelLogger(t *testing.T) {
	labScript(t, `
local m = lab.machine{ cpus = 2 }
local p = m:process{ privileges = {"SeSystemProfilePrivilege"} }
local s = m:start_kernel_logger{ profile = true }
lab.check(s:running(), "running")
local ok, err = pcall(m.start_kernel_logger, m, { profile = true })
lab.check(not ok and tostring(err):find("already running") ~= nil, "one NT Kernel Logger: " .. tostring(err))
m:interrupt{ cpu = 1, ip = 0x401234, process = p, isr = true }
lab.check(p:NtSetIntervalProfile(20000, lab.ProfileTime) == lab.STATUS_SUCCESS, "set interval while tracing")
local evs = s:events()
local sampled, setiv
for _, e in ipairs(evs) do
  if e.hook == lab.PERFINFO_LOG_TYPE_SAMPLED_PROFILE then sampled = e end
  if e.hook == lab.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL then setiv = e end
end
lab.check(sampled and sampled.cpu == 1 and sampled.InstructionPointer == 0x401234, "0x0F2E event")
lab.check(sampled and sampled.ThreadId == p:thread():id() and sampled.ExecutingIsr == true and sampled.ExecutingDpc == false, "0x0F2E fields")
lab.check(sampled and type(sampled.Count) == "number" and type(sampled.time) == "number", "Count and time")
lab.check(setiv and setiv.Source == lab.ProfileTime and setiv.NewInterval == 20000 and setiv.OldInterval == 10000, "0x0F48 event")
s:stop()
lab.check(not s:running() and #s:events() == #evs, "events readable after stop")
local s2 = m:start_kernel_logger{}
lab.check(s2:running(), "a new session after stop")
lab.check(tostring(s2):find("NT Kernel Logger") ~= nil, "tostring")
`)
	wantLabError(t, `lab.machine{}:start_kernel_logger{ profle = true }`, `unknown field "profle" (did you mean "profile"?)`)
}

func TestInjectAndRun(t *testing.T) {
	labScript(t, `
local m = lab.machine{}
local p = m:process{ privileges = {"SeSystemProfilePrivilege"} }
local buf, hp = p:alloc(0x1000), p:alloc(8)
lab.check(p:NtCreateProfile(hp, nil, 0x400000, 0x10000, 12, buf, 0x1000, lab.ProfileTime, 1) == lab.STATUS_SUCCESS, "create")
m:inject{ pool_failures = 1 }
local st = p:NtStartProfile(p:read_u64(hp))
lab.check(st == lab.STATUS_INSUFFICIENT_RESOURCES, "injected pool failure: " .. lab.status_name(st))
lab.check(p:NtStartProfile(p:read_u64(hp)) == lab.STATUS_SUCCESS, "only the next one fails")
`)
	wantLabError(t, `lab.machine{}:inject{ pool_failures = -1 }`, `field "pool_failures": -1 is negative`)
}

// failingHALs is a provider whose HALs fail every call, like a crashed plugin.
type failingHALs struct{}

func (failingHALs) Names() []string { return []string{"apic"} }
func (failingHALs) Open(names []string, spec lab.Spec, hw halhost.Hardware) ([]kernel.HALDispatch, func(), error) {
	h := kernel.NewTestHAL("apic", nt.ProfileTime)
	h.Fail = errors.New("plugin crashed")
	return []kernel.HALDispatch{h}, nil, nil
}

// brokenProvider cannot open its HALs at all.
type brokenProvider struct{}

func (brokenProvider) Names() []string { return []string{"apic"} }
func (brokenProvider) Open([]string, lab.Spec, halhost.Hardware) ([]kernel.HALDispatch, func(), error) {
	return nil, nil, errors.New("proflab-hal-apic not found; run make build")
}

// panickyHAL panics in a call.
type panickyHAL struct{ *kernel.TestHAL }

func (panickyHAL) QuerySource([]int, nt.Source) ([]kernel.SourceInfo, error) { panic("HAL bug") }

type panickyProvider struct{}

func (panickyProvider) Names() []string { return []string{"apic"} }
func (panickyProvider) Open([]string, lab.Spec, halhost.Hardware) ([]kernel.HALDispatch, func(), error) {
	return []kernel.HALDispatch{panickyHAL{kernel.NewTestHAL("apic", nt.ProfileTime)}}, nil, nil
}

func TestHALProviderSeam(t *testing.T) {
	released := 0
	def := config.Default().Machine
	def.HAL, def.CPUs = []string{"apic"}, 2
	rt, _ := newTestRuntime(t, Config{HALs: recordingProvider{&released}, Machine: &def})
	if err := rt.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{}
		assert(m:cpu_count() == 2 and #m:hal_sources() == 1)
		local ok, err = pcall(lab.machine, { hal = {"pmu"} })
		assert(not ok and err:find("the configured HALs are apic"), err)`)); err != nil {
		t.Fatal(err.Detail())
	}
	rt.Close()
	if released != 1 {
		t.Errorf("released %d times, want 1", released)
	}

	rt2, _ := newTestRuntime(t, Config{HALs: failingHALs{}})
	err := rt2.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{ hal = {"apic"} }
		local p = m:process{}
		local ok, e = pcall(p.NtQueryIntervalProfile, p, lab.ProfileTime, p:alloc(4))
		assert(not ok and e:find("plugin crashed"), e)`))
	if err != nil {
		t.Fatal(err.Detail())
	}
	if pf := rt2.PluginFailure(); pf == nil || pf.Kind != runerr.KindPlugin || !strings.Contains(pf.Message, "plugin crashed") {
		t.Errorf("PluginFailure = %+v", pf)
	}

	rt3, _ := newTestRuntime(t, Config{HALs: brokenProvider{}})
	err = rt3.Exec("s.lua", []byte(`local lab = require "proflab" lab.machine{ hal = {"apic"} }`))
	if err == nil || !strings.Contains(err.Message, "make build") || rt3.PluginFailure() == nil {
		t.Errorf("err = %v, plugin failure %v", err, rt3.PluginFailure())
	}

	rt4, _ := newTestRuntime(t, Config{HALs: panickyProvider{}})
	err = rt4.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{ hal = {"apic"} }
		local p = m:process{}
		p:NtQueryIntervalProfile(lab.ProfileTime, p:alloc(4))`))
	if err == nil || err.Kind != runerr.KindBug || !strings.Contains(err.Message, "HAL bug") {
		t.Errorf("err = %+v", err)
	}
}

type recordingProvider struct{ released *int }

func (r recordingProvider) Names() []string { return []string{"apic"} }
func (r recordingProvider) Open(names []string, spec lab.Spec, hw halhost.Hardware) ([]kernel.HALDispatch, func(), error) {
	hals, _, err := lab.TestHALs{}.Open(names, spec, hw)
	return hals, func() { *r.released++ }, err
}

func TestMethodsNeedTheirReceiver(t *testing.T) {
	rt, _ := newTestRuntime(t, Config{})
	err := rt.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{}
		local p = m:process{}
		local s = m:start_kernel_logger{}
		for _, f in ipairs{ function() m.process(5) end, function() p.alloc(m, 8) end,
		                    function() s.events(p) end, function() p.NtClose(m) end } do
		  local ok, err = pcall(f)
		  assert(not ok and err:find("call it as a method"), err)
		end`))
	if err != nil {
		t.Fatal(err.Detail())
	}
	if rt.Bug() != nil {
		t.Fatal(rt.Bug().Detail())
	}
	_ = lua.LNil
}
