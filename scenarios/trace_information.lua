-- TraceQueryInformation / TraceSetInformation (docs/reference/tracing.md;
-- conformance items 105, 106). Class 5 (TraceSampledProfileIntervalInfo) takes an
-- 8-byte TRACE_PROFILE_INTERVAL: Source 0 goes through the kernel's
-- EventTraceTimeProfileInformation, any other source through
-- NtQueryIntervalProfile (a HAL query). Class 7 lists the HAL's sources as
-- PROFILE_SOURCE_INFO records; a NULL buffer sizes it (ERROR_BAD_LENGTH).
-- The functions return Win32 error codes.
local lab = require "proflab"
local A = require "assert"

local m = lab.machine{ version = "10.0.19041" }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local buf, rl = p:alloc(0x1000), p:alloc(4)

local function interval(source)
  p:write_u32(buf, source)
  p:write_u32(buf + 4, 0)
  local before = #m:hal_log()
  local r = p:TraceQueryInformation(0, lab.TraceSampledProfileIntervalInfo, buf, 8, rl)
  return r, p:read_u32(buf + 4), #m:hal_log() - before
end

local r, iv, calls = interval(lab.ProfileTime)
A.expect_win32(r, lab.ERROR_SUCCESS, "105 source 0")
A.expect_eq({ iv, calls }, { 10000, 0 }, "105 source 0: the kernel's interval (10.0's timer default), no HAL call")
r, iv, calls = interval(lab.ProfileCacheMisses)
A.expect_win32(r, lab.ERROR_SUCCESS, "105 source 10")
A.expect_eq({ iv, calls }, { 65536, 1 }, "105 source 10: NtQueryIntervalProfile asks the HAL")
A.expect_win32(p:TraceQueryInformation(1, lab.TraceSampledProfileIntervalInfo, buf, 8, rl), lab.ERROR_INVALID_PARAMETER, "session must be 0")
A.expect_win32(p:TraceQueryInformation(0, lab.TraceSampledProfileIntervalInfo, buf, 12, rl), lab.ERROR_BAD_LENGTH, "exactly 8 bytes")

-- set through class 5
p:write_u32(buf, lab.ProfileTime)
p:write_u32(buf + 4, 20000)
A.expect_win32(p:TraceSetInformation(0, lab.TraceSampledProfileIntervalInfo, buf, 8), lab.ERROR_SUCCESS, "set ProfileTime")
A.expect_eq(select(2, interval(lab.ProfileTime)), 20000, "the kernel's interval follows")
local weak = m:process{}
local wb = weak:alloc(8)
weak:write_u32(wb + 4, 20000)
A.expect_win32(weak:TraceSetInformation(0, lab.TraceSampledProfileIntervalInfo, wb, 8), lab.ERROR_PRIVILEGE_NOT_HELD, "set needs the privilege")

-- class 7: the source list
A.expect_win32(p:TraceQueryInformation(0, lab.TraceProfileSourceListInfo, nil, 0, rl), lab.ERROR_BAD_LENGTH, "NULL buffer sizes the list")
local need = p:read_u32(rl)
A.expect_win32(p:TraceQueryInformation(0, lab.TraceProfileSourceListInfo, buf, need, rl), lab.ERROR_SUCCESS, "source list")
lab.log("source  min      max         description")
local off, names = 0, {}
repeat
  local next_off = p:read_u32(buf + off)
  local src, min, max = p:read_u32(buf + off + 4), p:read_u32(buf + off + 8), p:read_u32(buf + off + 12)
  local chars, i = {}, 0
  while true do
    local c = p:read_u16(buf + off + 0x18 + 2 * i)
    if c == 0 then break end
    chars[#chars + 1] = string.char(c)
    i = i + 1
  end
  local desc = table.concat(chars)
  names[#names + 1] = desc
  lab.log(("0x%02X    %-8d %-11d %s"):format(src, min, max, desc))
  A.expect_eq(off % 8, 0, "records are 8-byte aligned")
  off = off + next_off
until next_off == 0
A.expect_eq(names[1], "Timer", "ProfileTime's description is \"Timer\" (docs/reference/hal.md)")

-- 106: TraceSetInformation class 6
A.expect_win32(p:TraceSetInformation(0, lab.TraceProfileSourceConfigInfo, buf, 5 * 4), lab.ERROR_INCORRECT_SIZE, "106 five sources")
A.expect_win32(p:TraceSetInformation(0, lab.TraceProfileSourceConfigInfo, buf, 0), lab.ERROR_INVALID_PARAMETER, "106 zero sources")
