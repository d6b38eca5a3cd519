-- A failure of the system-space mapping alone at start
-- (docs/reference/start-stop.md#ntstartprofile; conformance item 52). NtStartProfile allocates the KPROFILE, locks the
-- buffer, then maps the locked pages into system space; if only that
-- mapping fails, start returns STATUS_INSUFFICIENT_RESOURCES and undoes
-- the rest: nothing stays locked, the profile stays stopped, no HAL
-- interrupt was started. m:inject{ map_failures = n } makes the next n
-- such mappings fail (pool allocations still succeed).
local lab = require "proflab"
local A = require "assert"
local P = require "profile"

local m = lab.machine{ version = "10.0.19041", cpus = 2 }
local p = m:process{}
local pr = P.create(p, { base = 0x400000, size = 0x400, check = false }) -- start and stop return their statuses
A.expect_status(pr.status, lab.STATUS_SUCCESS, "create")

local before = #m:hal_log()
m:inject{ map_failures = 1 }
A.expect_status(P.start(pr), lab.STATUS_INSUFFICIENT_RESOURCES, "52 the system-space mapping fails")
A.expect_eq(#P.hal_rows(m, "start", before), 0, "52 no HAL interrupt was started")
A.expect_status(P.stop(pr), lab.STATUS_PROFILING_NOT_STARTED, "52 the profile is still stopped")
A.expect_status(P.start(pr), lab.STATUS_SUCCESS, "the next start maps and starts")
A.expect_eq(#P.hal_rows(m, "start", before), 2, "ProfileTime started on both processors")
A.expect_status(P.stop(pr), lab.STATUS_SUCCESS, "stop")
