-- The HAL profile interface chosen from CPUID, and the counters it reports
-- (docs/reference/hal.md#the-hals-profile-interfaces; conformance items 95–97). The pmu HAL's settings
-- stand for what the Windows 10 HAL reads with CPUID on the boot
-- processor; lab.machine{ hal_settings = { pmu = {...} } } sets them for
-- one machine (merged over the configuration's [hal.pmu.settings]).
local lab = require "proflab"
local A = require "assert"

-- the counter sources a machine's HALs list (ProfileTime excluded)
local function counters(m)
  local out = {}
  for _, s in ipairs(m:hal_sources()) do
    if s.source ~= lab.ProfileTime then out[#out + 1] = s.source end
  end
  return out
end
local function machine(vendor, settings)
  return lab.machine{ cpu_vendor = vendor, hal = { "apic", "pmu" }, hal_settings = { pmu = settings } }
end

-- 95: a Microsoft-compatible hypervisor that hides the performance
-- monitors leaves the Default interface, ProfileTime only, on either vendor
for _, vendor in ipairs({ "GenuineIntel", "AuthenticAMD" }) do
  local m = machine(vendor, { hypervisor_hides_counters = true })
  A.expect_eq(#counters(m), 0, "95 " .. vendor .. " under a hiding hypervisor: no counter source")
  local p = m:process{}
  local iv = p:alloc(4)
  A.expect_status(p:NtQueryIntervalProfile(lab.ProfileTotalIssues, iv), lab.STATUS_SUCCESS, "95 query")
  A.expect_eq(p:read_u32(iv), 0, "95 TotalIssues is unsupported: interval 0")
end
A.expect_eq(#counters(machine("GenuineIntel", {})), 12, "the Emon interface without a hypervisor")

-- 96: CPUID leaf 0x0A EBX bit 2 set: UnhaltedReferenceCycles (0x1B) is
-- unavailable, the other Emon sources stay
local c96 = counters(machine("GenuineIntel", { cpuid_0a_ebx = 4 }))
A.expect_eq(#c96, 11, "96 one source fewer")
for _, s in ipairs(c96) do A.expect_eq(s ~= 0x1B, true, "96 no UnhaltedReferenceCycles") end

-- 97: Emon's per-processor counter memory cannot be allocated: every
-- source unsupported
A.expect_eq(#counters(machine("GenuineIntel", { counter_allocation_fails = true })), 0, "97 every Emon source unsupported")
-- The Amd64 interface bug-checks HAL_MEMORY_ALLOCATION instead: its HAL
-- refuses to configure, so the machine cannot be built
A.expect_error(function() machine("AuthenticAMD", { counter_allocation_fails = true }) end,
  "HAL_MEMORY_ALLOCATION", "97 the Amd64 interface bug-checks")

-- From 1903 the ETW counter limit (sub-class 0x0F) is what the HALs report
-- for HalQueryProfileNumberOfCounters: a pmu with 4 counters takes 4, not
-- 5; 1809 kept 8 whatever the HAL had.
local KL = 0xFFFF
local function counter_list(version, n)
  local m = lab.machine{ version = version, hal = { "apic", "pmu" }, hal_settings = { pmu = { counters = 4 } } }
  local admin = m:process{ privileges = { "SeSystemProfilePrivilege" } }
  local s = m:start_kernel_logger{}
  local buf = admin:alloc(0x100)
  admin:write_u32(buf, lab.EventTraceProfileCounterListInformation)
  admin:write_u64(buf + 8, KL)
  for i = 1, n do admin:write_u32(buf + 0x10 + 4 * (i - 1), lab.ProfileTotalIssues) end
  local st = admin:NtSetSystemInformation(lab.SystemPerformanceTraceInformation, buf, 0x10 + 4 * n)
  s:stop()
  return st, m
end
A.expect_status(counter_list("10.0.17763", 5), lab.STATUS_SUCCESS, "1809: 5 counters (the limit is 8)")
A.expect_status(counter_list("10.0.18362", 4), lab.STATUS_SUCCESS, "1903: 4 counters, as the HAL reports")
local st, m = counter_list("10.0.18362", 5)
A.expect_status(st, lab.STATUS_INVALID_PARAMETER, "1903: 5 counters exceed the HAL's 4")
local asked = {}
for _, r in ipairs(m:hal_log()) do
  if r.call == "counters" then asked[#asked + 1] = { r.hal, r.class, r.interval } end
end
A.expect_eq(asked, { { "apic", 0x2C, 0 }, { "pmu", 0x2C, 4 } }, "HalQueryProfileNumberOfCounters asked of each HAL")
