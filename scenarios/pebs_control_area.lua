-- PEBS control areas (docs/reference/system-information.md; conformance items 89–94).
-- NtSetSystemInformation(SystemProcessorProfileControlArea) is for kernel
-- mode only and acts on the current processor: Allocate = 1 gives a
-- zeroed 0x60-byte PROCESSOR_PROFILE_CONTROL_AREA, or the existing one
-- with STATUS_ADDRESS_ALREADY_EXISTS; the kernel's own PEBS check fails an
-- AMD (or PEBS-less) processor with STATUS_NOT_SUPPORTED; Allocate = 0
-- frees it, or STATUS_MEMORY_NOT_ALLOCATED with a NULL output.
local lab = require "proflab"
local A = require "assert"

local function request(k, buf, allocate)
  k:write_u64(buf, 0xAAAA)
  k:write_u8(buf + 8, allocate)
  local st = k:NtSetSystemInformation(lab.SystemProcessorProfileControlArea, buf, 0x10)
  return st, k:read_u64(buf)
end

local m = lab.machine{ version = "10.0.19041", cpus = 2 }
local user = m:process{}
A.expect_status(user:NtSetSystemInformation(lab.SystemProcessorProfileControlArea, user:alloc(0x10), 0x10), lab.STATUS_ACCESS_DENIED, "89 user mode")

local k = m:kernel{ cpu = 1 }
local buf = k:alloc(0x10)
local st, out = request(k, buf, 0)
A.expect_status(st, lab.STATUS_MEMORY_NOT_ALLOCATED, "92 free with no area")
A.expect_eq(out, 0, "92 NULL output")

local st1, area = request(k, buf, 1)
A.expect_status(st1, lab.STATUS_SUCCESS, "allocate")
A.expect_ne(area, 0, "an area address")
local zero = true
for i = 0, 0x60 - 8, 8 do zero = zero and k:read_u64(area + i) == 0 end
A.expect_eq(zero, true, "94 the area is zero-filled")
lab.log(("cpu 1 area at %s (PebsIndex at +0x28 = %s)"):format(tostring(area), tostring(k:read_u64(area + 0x28))))

local st2, again = request(k, buf, 1)
A.expect_status(st2, lab.STATUS_ADDRESS_ALREADY_EXISTS, "91 allocate twice")
A.expect_eq(lab.u64(again) == lab.u64(area), true, "91 the output is the first area")

k:run_on(0)
local st3, other = request(k, buf, 1)
A.expect_status(st3, lab.STATUS_SUCCESS, "cpu 0 gets its own area")
A.expect_eq(lab.u64(other) ~= lab.u64(area), true, "per processor")
A.expect_status((request(k, buf, 0)), lab.STATUS_SUCCESS, "free cpu 0's area")

local amd = lab.machine{ cpu_vendor = "AuthenticAMD" }
local ka = amd:kernel{ cpu = 0 }
local sta, outa = request(ka, ka:alloc(0x10), 1)
A.expect_status(sta, lab.STATUS_NOT_SUPPORTED, "90 AMD has no PEBS")
A.expect_eq(outa, 0, "90 NULL output")

local nopebs = lab.machine{ pebs = false }
A.expect_status((request(nopebs:kernel{ cpu = 0 }, nopebs:kernel{ cpu = 0 }:alloc(0x10), 1)), lab.STATUS_NOT_SUPPORTED, "90 Intel without PEBS")

local starved = lab.machine{}
local ks = starved:kernel{ cpu = 0 }
local sbuf = ks:alloc(0x10)
starved:inject{ pool_failures = 1 }
local stf, outf = request(ks, sbuf, 1)
A.expect_status(stf, lab.STATUS_INSUFFICIENT_RESOURCES, "93 allocation fails")
A.expect_eq(outf, 0, "93 NULL output")

A.expect_status(lab.machine{ version = "6.1" }:kernel{ cpu = 0 }:NtSetSystemInformation(lab.SystemProcessorProfileControlArea, 0, 0x10),
  lab.STATUS_INVALID_INFO_CLASS, "the class arrives in 6.2")
