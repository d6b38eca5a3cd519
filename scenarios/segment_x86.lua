-- The x86 segment path (docs/reference/profile-objects.md; conformance items 8–10).
-- On 32-bit Windows, BucketSize 0 with a ProfileBase below 0x10000 names a
-- segment: the kernel picks the smallest power-of-two bucket covering
-- ProfileSize with BufferSize/4 counters. Global segment profiling is
-- refused. x64 has no segment path.
local lab = require "proflab"
local A = require "assert"

local m = lab.machine{ version = "10.0.19041", arch = "x86" }
local p = m:process{}

local function create(process, base, size, bucket, bufsize)
  return p:NtCreateProfile(p:alloc(8), process, base, size, bucket, p:alloc(math.max(bufsize, 4)), bufsize, lab.ProfileTime, -1)
end

A.expect_status(create(lab.NtCurrentProcess, 0x1234, 0x10000, 0, 0x100), lab.STATUS_SUCCESS, "08 segment with a process")
A.expect_status(create(0, 0x1234, 0x10000, 0, 0x100), lab.STATUS_INVALID_PARAMETER, "09 global segment profiling")
A.expect_status(create(lab.NtCurrentProcess, 0x10000, 0x100, 0, 0x100), lab.STATUS_INVALID_PARAMETER, "10 base above 0xFFFF")
A.expect_status(create(lab.NtCurrentProcess, 0xFFFF, 0x100, 0, 3), lab.STATUS_INVALID_PARAMETER_7, "segment with BufferSize 3 (ReactOS test on Windows)")

local m64 = lab.machine{ version = "10.0.19041", arch = "x64" }
local q = m64:process{}
A.expect_status(q:NtCreateProfile(q:alloc(8), lab.NtCurrentProcess, 0xFFFF, 0x100, 0, q:alloc(4), 3, lab.ProfileTime, -1),
  lab.STATUS_INVALID_PARAMETER, "x64: the same call has no segment path")
