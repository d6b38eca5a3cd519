-- Version differences (docs/reference/README.md). Services take the arguments
-- their version declares: 3.10 and 3.50 have no source or affinity in
-- NtCreateProfile and one-argument interval services; NtCreateProfileEx
-- arrives in 6.1; TraceQueryInformation in 6.2. The ProfileObject type,
-- the HAL source check (6.2), the buffer-check fix (1703) and the
-- inclusive-end fix (1809) are shown in their own scenarios.
local lab = require "proflab"
local A = require "assert"

-- 3.10: seven-argument create, one-argument query and set, KeProfileInterrupt
local m = lab.machine{ version = "3.10" }
local p = m:process{}
local hv, buf = p:alloc(8), p:alloc(0x40)
A.expect_status(p:NtCreateProfile(hv, lab.NtCurrentProcess, 0x400000, 0x40, 4, buf, 0x10), lab.STATUS_SUCCESS, "3.10 create, 7 arguments")
A.expect_error(function() p:NtCreateProfile(hv, lab.NtCurrentProcess, 0x400000, 0x40, 4, buf, 0x10, lab.ProfileTime) end,
  "NtCreateProfile", "3.10 rejects an eighth argument")
local h = p:read_u32(hv)
A.expect_status(p:NtStartProfile(h), lab.STATUS_SUCCESS, "3.10 start")
m:interrupt{ cpu = 0, ip = 0x400000, process = p, source = lab.ProfileCacheMisses } -- no source in 3.10: it counts
A.expect_eq(p:read_u32(buf), 1, "71 3.10's KeProfileInterrupt has no source")
local iv = p:alloc(4)
A.expect_status(p:NtQueryIntervalProfile(iv), lab.STATUS_SUCCESS, "3.10 one-argument query")
A.expect_eq(p:read_u32(iv), 39063, "3.10 timer interval")
A.expect_status(p:NtSetIntervalProfile(20000), lab.STATUS_SUCCESS, "3.10 one-argument set")
A.expect_status(p:NtQueryIntervalProfile(iv), lab.STATUS_SUCCESS, "3.10 query again")
A.expect_eq(p:read_u32(iv), 20000, "3.10 set took effect")
A.expect_error(function() p:NtCreateProfileEx(hv, 0, 0, 0, 0, 0, 0, 0, 0, 0) end, "NtCreateProfileEx", "no NtCreateProfileEx in 3.10")

-- x64 needs 5.2 or later
A.expect_error(function() lab.machine{ version = "5.1", arch = "x64" } end, "x64", "5.1 had no x64 build")
A.expect_error(function() lab.machine{ version = "7.0" } end, "10.0.19041", "unknown versions list the accepted ones")

-- 6.1 has NtCreateProfileEx; 6.2 has TraceQueryInformation
local m61 = lab.machine{ version = "6.1" }
local q = m61:process{}
A.expect_status(q:NtCreateProfileEx(q:alloc(8), lab.NtCurrentProcess, 0x400000, 0x40, 4, q:alloc(16), 16, lab.ProfileTime, 0, nil),
  lab.STATUS_SUCCESS, "6.1 NtCreateProfileEx")
A.expect_error(function() q:TraceQueryInformation(0, lab.TraceSampledProfileIntervalInfo, q:alloc(8), 8, nil) end,
  "TraceQueryInformation", "no TraceQueryInformation in 6.1")

-- a default machine is Windows 10 2004 on x64 with 4 processors
local d = lab.machine{}
A.expect_eq(d:cpu_count(), 4, "default cpus")
