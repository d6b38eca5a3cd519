package luart

import "testing"

// lab.machine{ hal_settings = ... } reaches the HAL's settings for one
// machine only (items 95–97 of docs/reference/conformance.md, from a
// scenario).
func TestHALSettingsField(t *testing.T) {
	labScript(t, `
local function count(m) return #m:hal_sources() end
lab.check(count(lab.machine{ hal = { "apic", "pmu" } }) == 13, "Intel: Timer and 12 Emon sources")
lab.check(count(lab.machine{ hal = { "apic", "pmu" }, hal_settings = { pmu = { hypervisor_hides_counters = true } } }) == 1, "95 Default interface")
lab.check(count(lab.machine{ hal = { "apic", "pmu" }, hal_settings = { pmu = { cpuid_0a_ebx = 4 } } }) == 12, "96 one source fewer")
lab.check(count(lab.machine{ hal = { "apic", "pmu" }, hal_settings = { pmu = { skid = {}, counters = 2 } } }) == 13, "an empty list and a number")
local s = lab.machine{ hal = { "apic" }, hal_settings = { apic = { max = 5000000 } } }:hal_sources()[1]
lab.check(s.max == 5000000 and s.default == 10000, "an explicit bound wins, the others are the version's")
lab.check(lab.machine{}:hal_sources()[1].max == 1000000, "the next machine has the configuration's settings")
`)
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{`lab.machine{ hal_settings = 3 }`, []string{"hal_settings"}},
		{`lab.machine{ hal = { "apic" }, hal_settings = { pmu = {} } }`, []string{`"pmu" is not one of this machine's HALs`}},
		{`lab.machine{ hal_settings = { pmu = { counters = 2.5 } } }`, []string{"pmu.counters = 2.5: settings are integers"}},
		{`lab.machine{ hal_settings = { pmu = { counters = print } } }`, []string{"pmu.counters: a function cannot be a setting"}},
		// a table that contains itself went on until the memory budget
		{`local t = {} t.x = t lab.machine{ hal_settings = { pmu = t } }`, []string{"pmu.x.x.x", "settings nested more than 32 deep (a table that contains itself?)"}},
		{`local t = {} t[1] = t lab.machine{ hal_settings = { pmu = { skid = t } } }`, []string{"pmu.skid[1][1]", "settings nested more than 32 deep"}},
		{`lab.machine{ hal_settings = { pmu = { countres = 2 } } }`, []string{`hal_settings`, `pmu refused them`, `unknown setting "countres"`}},
	} {
		wantLabError(t, tc.src, tc.want...)
	}
}

// m:on_hal_call runs inside the kernel's HAL calls (item 84 of
// docs/reference/conformance.md).
func TestOnHALCall(t *testing.T) {
	labScript(t, `
local m = lab.machine{ cpus = 2 }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local seen, s = {}, nil
m:on_hal_call(function(c)
  seen[#seen + 1] = c.call .. " " .. c.hal .. " " .. c.source .. " " .. #c.cpus
  if c.call == "set" and not s then s = m:start_kernel_logger{ profile = true } end
end)
lab.check(p:NtSetIntervalProfile(20000, lab.ProfileTime) == lab.STATUS_SUCCESS, "set")
lab.check(seen[1] == "set apic 0 2" and seen[2] == "query apic 0 1" and #seen == 2, "set, then its re-query")
local old
for _, e in ipairs(s:events()) do if e.hook == lab.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL then old = e.OldInterval end end
lab.check(old == 0, "84 Old is 0")
m:on_hal_call(nil)
lab.check(p:NtSetIntervalProfile(30000, lab.ProfileTime) == lab.STATUS_SUCCESS and #seen == 2, "removed")
`)
	labScript(t, `
local m = lab.machine{ cpus = 2 }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local seen = {}
m:on_hal_call(function(c) seen[#seen + 1] = c.call end)
local co = coroutine.create(function() return p:NtSetIntervalProfile(20000, lab.ProfileTime) end)
local ok, st = coroutine.resume(co)
lab.check(ok and st == lab.STATUS_SUCCESS and #seen == 1 and seen[1] == "set", "the hook runs for a call made in a coroutine")
`)
	// a source no HAL supports (3, ProfilePipelineDry, on 5.1 … 2004): the
	// kernel's calls reach no HAL, m:hal_log() lists them with hal = nil,
	// and the hook runs for them with hal = nil too
	labScript(t, `
local m = lab.machine{ version = "6.1", cpus = 2 }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local seen = {}
m:on_hal_call(function(c) seen[#seen + 1] = c.call .. " " .. tostring(c.hal) .. " " .. c.source .. " " .. #c.cpus end)
local iv = p:alloc(4)
lab.check(p:NtQueryIntervalProfile(lab.ProfilePipelineDry, iv) == lab.STATUS_SUCCESS and p:read_u32(iv) == 0, "no HAL: interval 0")
local log = m:hal_log()
lab.check(log[#log].call == "query" and log[#log].hal == nil and log[#log].source == lab.ProfilePipelineDry, "hal_log lists the query with hal = nil")
lab.check(#seen == 1 and seen[1] == "query nil 3 1", "the hook runs for it with hal = nil: " .. table.concat(seen, "; "))
`)
	wantLabError(t, `local m = lab.machine{} m:on_hal_call(5)`, "expected a function or nil")
	wantLabError(t, `local m = lab.machine{}
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
m:on_hal_call(function() error("hook broke") end)
p:NtSetIntervalProfile(20000, lab.ProfileTime)`, "hook broke")
}

// p:duplicate_handle makes a handle with a chosen access (item 47 of
// docs/reference/conformance.md).
func TestDuplicateHandle(t *testing.T) {
	labScript(t, `
local m = lab.machine{ cpus = 1 }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local buf, hp = p:alloc(0x100), p:alloc(8)
lab.check(p:NtCreateProfile(hp, 0, 0x400000, 0x40, 4, buf, 0x10, lab.ProfileTime, 1) == lab.STATUS_SUCCESS, "create")
local h = p:read_u64(hp)
local weak = p:duplicate_handle(h, lab.SYNCHRONIZE)
lab.check(weak ~= h and p:NtStartProfile(weak) == lab.STATUS_ACCESS_DENIED, "47 start denied")
local strong = p:duplicate_handle(h, lab.PROFILE_ALL_ACCESS)
lab.check(p:NtStartProfile(strong) == lab.STATUS_SUCCESS, "start through a duplicate")
`)
	wantLabError(t, `local m = lab.machine{} local p = m:process{} p:duplicate_handle(0x7FF0, 1)`, "argument #1 (handle)", "has no handle 0x7ff0")
	wantLabError(t, `local m = lab.machine{} local p = m:process{} p:duplicate_handle(-1, 1, 7)`, "target")
}
