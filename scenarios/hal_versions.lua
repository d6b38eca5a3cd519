-- The shipped HALs model the HAL of the machine's Windows version
-- (docs/reference/hal.md#the-shipped-hals). The timer HAL's
-- ProfileTime starts at 39063 with a maximum of 10000000 before 10.0, and
-- at 10000 (1 ms) with a maximum of 1000000 on every 10.0 version. Counter
-- sources exist only where the version's HAL had them: no 32-bit HAL
-- implements anything but ProfileTime before 6.2; the x64 HAL had
-- AuthenticAMD sources from 2003 SP1 (5.2) and GenuineIntel ones from
-- Vista (6.0). A HAL setting wins over the version: here pmu's
-- every_version.
local lab = require "proflab"
local A = require "assert"
local S = require "sampling"

local function describe(version, arch, vendor, settings)
  local m = lab.machine{ version = version, arch = arch, cpu_vendor = vendor, hal = { "apic", "pmu" },
    hal_settings = settings and { pmu = settings } or nil }
  local srcs = m:hal_sources()
  return srcs[1], #srcs - 1
end

local rows = {}
for _, c in ipairs({
  { "5.1", "x86", "GenuineIntel", 0 },
  { "5.2", "x64", "GenuineIntel", 0 },
  { "5.2", "x64", "AuthenticAMD", 175 },
  { "6.0", "x64", "GenuineIntel", 12 },
  { "6.1", "x86", "GenuineIntel", 0 },
  { "6.2", "x86", "GenuineIntel", 12 },
  { "6.3", "x64", "AuthenticAMD", 175 },
  { "10.0", "x86", "GenuineIntel", 12 },
  { "10.0.19041", "x64", "GenuineIntel", 12 },
  { "10.0.19041", "x64", "AuthenticAMD", 175 },
}) do
  local timer, counters = describe(c[1], c[2], c[3])
  A.expect_eq(counters, c[4], ("counter sources on %s %s %s"):format(c[1], c[2], c[3]))
  A.expect_eq(timer.description, "Timer", "the timer's description")
  local ten = c[1]:sub(1, 4) == "10.0"
  A.expect_eq({ timer.default, timer.max }, ten and { 10000, 1000000 } or { 39063, 10000000 }, "the timer's default and maximum on " .. c[1])
  rows[#rows + 1] = { c[1], c[2], c[3], timer.default, timer.min, timer.max, counters }
end
S.table("The HALs of each version", { "version", "arch", "vendor", "timer default", "min", "max", "counter sources" }, rows)

local _, forced = describe("5.1", "x86", "GenuineIntel", { every_version = true })
A.expect_eq(forced, 12, "every_version = true: the Emon sources on an x86 5.1 machine")
local t = describe("6.1", "x64", "GenuineIntel", nil)
A.expect_eq(t.default, 39063, "6.1's timer default")
