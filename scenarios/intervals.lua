-- Profile intervals (docs/reference/intervals.md; conformance items 72–82).
-- Queries go to the HAL and report 0 for an unsupported source, with
-- success; ProfileAlignmentFixup is the kernel's own value; sets go to the
-- HAL once per active processor and the HAL clamps; cache-errata support
-- keeps ProfileTime at most at its own interval.
local lab = require "proflab"
local A = require "assert"
local P = require "profile"

local m = lab.machine{ version = "10.0.19041", cpus = 4 }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }

-- On 10.0 the timer HAL starts at 10000 (1 ms) and clamps to 1000000 (docs/reference/hal.md).
A.expect_eq(P.query_interval(p, lab.ProfileTime), 10000, "80 ProfileTime default (100 ns units)")
A.expect_eq(P.query_interval(p, lab.ProfileTotalIssues), 65536, "82 counter default")
local iv, st = P.query_interval(p, lab.ProfilePipelineDry)
A.expect_status(st, lab.STATUS_SUCCESS, "72 unsupported source: success")
A.expect_eq(iv, 0, "72 unsupported source: interval 0")
A.expect_eq(P.query_interval(p, lab.ProfileAlignmentFixup), 0, "73 fixup before any set")
A.expect_status(p:NtQueryIntervalProfile(lab.ProfileTime, lab.u64("0xFFFFF80000000000")), lab.STATUS_ACCESS_VIOLATION, "74 kernel-space Interval pointer")

local before = #m:hal_log()
A.expect_status(p:NtSetIntervalProfile(77, lab.ProfileAlignmentFixup), lab.STATUS_SUCCESS, "set fixup")
A.expect_eq(#m:hal_log(), before, "78 fixup involves no HAL call")
A.expect_eq(P.query_interval(p, lab.ProfileAlignmentFixup), 77, "73 fixup after a set")

before = #m:hal_log()
A.expect_status(p:NtSetIntervalProfile(20000, lab.ProfileTime), lab.STATUS_SUCCESS, "set ProfileTime")
local sets = P.hal_rows(m, "set", before)
A.expect_eq(#sets, 4, "79 one HalSetSystemInformation per active processor")
for i, r in ipairs(sets) do
  A.expect_eq({ r.cpu, r.class, r.source, r.interval, r.hal }, { i - 1, 0, lab.ProfileTime, 20000, "apic" }, "79 row " .. i)
end

lab.log("source                    set        queried back")
for _, c in ipairs({
  { lab.ProfileTime, "ProfileTime", 1, 1221 },
  { lab.ProfileTime, "ProfileTime", 20000000, 1000000 },
  { lab.ProfileTime, "ProfileTime", 15000, 15000 },
  { lab.ProfileBranchMispredictions, "ProfileBranchMispredictions", 100, 4096 },
  { lab.ProfileBranchMispredictions, "ProfileBranchMispredictions", 100000, 100000 },
}) do
  A.expect_status(p:NtSetIntervalProfile(c[3], c[1]), lab.STATUS_SUCCESS, "set " .. c[2])
  local got = P.query_interval(p, c[1])
  A.expect_eq(got, c[4], ("80/82 %s set to %d reads back"):format(c[2], c[3]))
  lab.log(("%-25s %-10d %d"):format(c[2], c[3], got))
end
A.expect_status(p:NtSetIntervalProfile(1000, lab.ProfilePipelineDry), lab.STATUS_SUCCESS, "77 set of an unsupported source succeeds")

-- 81: cache errata
local e = lab.machine{ cache_errata_interval = 5000 }
local q = e:process{ privileges = { "SeSystemProfilePrivilege" } }
A.expect_status(q:NtSetIntervalProfile(1000000, lab.ProfileTime), lab.STATUS_SUCCESS, "errata set")
A.expect_eq(P.query_interval(q, lab.ProfileTime), 5000, "81 the errata interval stays in effect")
A.expect_status(q:NtSetIntervalProfile(2000, lab.ProfileTime), lab.STATUS_SUCCESS, "errata set shorter")
A.expect_eq(P.query_interval(q, lab.ProfileTime), 2000, "81 a shorter interval is allowed")
