-- Start, stop and the limits (docs/reference/start-stop.md; conformance items
-- 41–52, 55–57). Start refuses a started profile, stop a stopped one;
-- start/stop pairs repeat; handles need PROFILE_CONTROL and the right
-- object type; from 6.1 at most 8192 × processors profiles are started at
-- once, system-wide; allocation and mapping failures are
-- STATUS_INSUFFICIENT_RESOURCES.
local lab = require "proflab"
local A = require "assert"
local P = require "profile"

local m = lab.machine{ version = "10.0.19041", cpus = 1 }
local p = m:process{}
local pr = P.create(p, { base = 0x400000, size = 0x40, check = false }) -- the helpers return the statuses under test
A.expect_status(pr.status, lab.STATUS_SUCCESS, "create")
A.expect_status(P.stop(pr), lab.STATUS_PROFILING_NOT_STARTED, "43 stop before any start")
A.expect_status(P.start(pr), lab.STATUS_SUCCESS, "41 start")
A.expect_status(P.start(pr), lab.STATUS_PROFILING_NOT_STOPPED, "42 start twice")
A.expect_status(P.stop(pr), lab.STATUS_SUCCESS, "45 stop")
A.expect_status(P.stop(pr), lab.STATUS_PROFILING_NOT_STARTED, "44 stop twice")
A.expect_status(P.start(pr), lab.STATUS_SUCCESS, "45 start again")
A.expect_status(P.stop(pr), lab.STATUS_SUCCESS, "45 stop again")

local ph = p:open_process(p, lab.PROCESS_ALL_ACCESS)
A.expect_status(p:NtStartProfile(ph), lab.STATUS_OBJECT_TYPE_MISMATCH, "46 a process handle")
A.expect_status(p:NtStartProfile(0x1234), lab.STATUS_INVALID_HANDLE, "a bogus handle")

-- 51/52: pool and mapping failures
m:inject{ pool_failures = 1 }
A.expect_status(P.start(pr), lab.STATUS_INSUFFICIENT_RESOURCES, "51 KPROFILE allocation fails")
A.expect_status(P.start(pr), lab.STATUS_SUCCESS, "the next start works")
A.expect_status(P.stop(pr), lab.STATUS_SUCCESS, "stop")

-- 56: closing a started profile stops it (its HAL interrupt stops)
A.expect_status(P.start(pr), lab.STATUS_SUCCESS, "start before close")
local n = #m:hal_log()
A.expect_status(P.close(pr), lab.STATUS_SUCCESS, "56 close")
local stops = P.hal_rows(m, "stop", n)
A.expect_eq(#stops, 1, "56 closing stopped the ProfileTime interrupt")
A.expect_status(p:NtClose(pr.handle), lab.STATUS_INVALID_HANDLE, "the handle is gone")

-- 48/49: the system-wide limit, 8192 per processor, shared across processes
local procs = { m:process{}, m:process{} }
local buf = procs[1]:alloc(4)
local limited
for i = 1, 8193 do
  local q = procs[(i % 2) + 1]
  local b = q == procs[1] and buf or nil
  local x = P.create(q, { base = 0x400000, size = 0x10, buffer = b, check = false })
  local st = P.start(x)
  if st ~= lab.STATUS_SUCCESS then limited = { i, st } break end
end
A.expect_eq(limited and limited[1], 8193, "48/49 the 8193rd start fails")
A.expect_status(limited and limited[2], lab.STATUS_PROFILING_AT_LIMIT, "48 STATUS_PROFILING_AT_LIMIT")

-- 50: in 5.0 the limit is ineffective
local old = lab.machine{ version = "5.0", cpus = 1 }
local q = old:process{}
local ok = true
for _ = 1, 9 do ok = ok and P.start(P.create(q, { base = 0x400000, size = 0x10, check = false })) == lab.STATUS_SUCCESS end
A.expect_eq(ok, true, "50 the ninth start on 5.0 succeeds")
