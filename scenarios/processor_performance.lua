-- Processor performance information (docs/reference/system-information.md;
-- conformance items 70, 86–88). NtQuerySystemInformation class 0x08 returns one
-- 0x30-byte SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION per active processor;
-- InterruptCount at offset 0x28 rises by one per profile interrupt. A
-- buffer that is not a whole number of elements gets
-- STATUS_INFO_LENGTH_MISMATCH with the full size in ReturnLength; a
-- smaller whole number is truncated and succeeds. 0x8D (6.2+) is the same
-- with 0x48-byte elements.
local lab = require "proflab"
local A = require "assert"

for _, arch in ipairs({ "x86", "x64" }) do
  local m = lab.machine{ version = "10.0.19041", arch = arch, cpus = 3 }
  local p = m:process{}
  for _ = 1, 5 do m:interrupt{ cpu = 1, ip = 0x401000, process = p } end
  m:interrupt{ cpu = 2, ip = 0x401000, source = lab.ProfileTotalIssues }
  local buf, rl = p:alloc(0x1000), p:alloc(4)

  A.expect_status(p:NtQuerySystemInformation(lab.SystemProcessorPerformanceInformation, buf, 3 * 0x30, rl), lab.STATUS_SUCCESS, arch .. " query")
  A.expect_eq(p:read_u32(rl), 3 * 0x30, arch .. " ReturnLength")
  local counts = {}
  for cpu = 0, 2 do counts[#counts + 1] = p:read_u32(buf + cpu * 0x30 + 0x28) end
  A.expect_eq(counts, { 0, 5, 1 }, "70 " .. arch .. " InterruptCount per processor")
  lab.log(("%s InterruptCount: cpu0=%d cpu1=%d cpu2=%d"):format(arch, counts[1], counts[2], counts[3]))

  A.expect_status(p:NtQuerySystemInformation(lab.SystemProcessorPerformanceInformation, buf, 2 * 0x30 + 1, rl), lab.STATUS_INFO_LENGTH_MISMATCH, "86 one byte too many")
  A.expect_eq(p:read_u32(rl), 3 * 0x30, "86 ReturnLength is the full array")
  A.expect_status(p:NtQuerySystemInformation(lab.SystemProcessorPerformanceInformation, buf, 0x30, rl), lab.STATUS_SUCCESS, "87 room for one")
  A.expect_eq(p:read_u32(rl), 0x30, "87 truncated ReturnLength")

  A.expect_status(p:NtQuerySystemInformation(lab.SystemProcessorPerformanceInformationEx, buf, 3 * 0x48, rl), lab.STATUS_SUCCESS, "88 Ex")
  A.expect_eq(p:read_u32(buf + 0x48 + 0x28), 5, "88 Ex InterruptCount at 0x28 of a 0x48-byte element")
  A.expect_status(p:NtQuerySystemInformation(lab.SystemProcessorPerformanceInformationEx, buf, 5 * 0x30, rl), lab.STATUS_INFO_LENGTH_MISMATCH, "88 Ex with a length of 0x30-byte elements")
  A.expect_eq(p:read_u32(rl), 3 * 0x48, "88 Ex ReturnLength")
end

local old = lab.machine{ version = "6.1" }
local q = old:process{}
A.expect_status(q:NtQuerySystemInformation(lab.SystemProcessorPerformanceInformationEx, q:alloc(0x200), 4 * 0x48, nil),
  lab.STATUS_INVALID_INFO_CLASS, "0x8D does not exist before 6.2")
