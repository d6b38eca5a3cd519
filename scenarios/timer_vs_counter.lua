-- Timer versus counter sampling of the same workload (docs/architecture.md, "Workloads
-- and ground truth"; docs/reference/hal.md for the counter sources and
-- the HAL's intervals). ProfileTime samples land where the *time* goes
-- (cycles), ProfileTotalIssues where the *instructions* retire, and
-- ProfileCacheMisses where the cache misses: one workload, three different
-- profiles, each matching its own ground truth.
local lab = require "proflab"
local P = require "profile"
local S = require "sampling"
local stats = require "stats"

local m = lab.machine{ cpus = 2, hal = { "apic", "pmu" } }
local p = m:process{ name = "app", privileges = { "SeSystemProfilePrivilege" } }

local base = 0x10000
local fns = {
  { name = "compute", base = base,          size = 0x400, weight = 6, cpi = 0.5 },
  { name = "memcopy", base = base + 0x400,  size = 0x400, weight = 2, cpi = 4, cache_miss_rate = 0.05 },
  { name = "parse",   base = base + 0x800,  size = 0x400, weight = 2, cpi = 1.5, branch_rate = 0.25, mispredict_rate = 0.1 },
}
local spec = { base = base, size = 0xC00, bucket = 6 }
local sources = { { "ProfileTime", lab.ProfileTime, 1221 }, { "ProfileTotalIssues", lab.ProfileTotalIssues, 100000 }, { "ProfileCacheMisses", lab.ProfileCacheMisses, 4096 } }
local profiles = {}
for i, s in ipairs(sources) do
  spec.source = s[2]
  profiles[i] = P.create_and_start(p, spec)
  lab.check(p:NtSetIntervalProfile(s[3], s[2]) == lab.STATUS_SUCCESS, "set the interval of " .. s[1])
end

local res = m:run{ duration_us = 1000000, workload = { process = p, functions = fns } }

local truths = { S.truth(res, fns, "cycles"), S.truth(res, fns, "instructions"), S.truth(res, fns, "cache_misses") }
local sampled = {}
for i, pr in ipairs(profiles) do sampled[i] = stats.shares(S.by_function(P.buckets(pr), base, spec.bucket, fns)) end
local truth_shares = { stats.shares(truths[1]), stats.shares(truths[2]), stats.shares(truths[3]) }

local rows = {}
for _, f in ipairs(fns) do
  rows[#rows + 1] = { f.name, S.pct(truth_shares[1][f.name]), S.pct(sampled[1][f.name]), S.pct(truth_shares[2][f.name]),
    S.pct(sampled[2][f.name]), S.pct(truth_shares[3][f.name]), S.pct(sampled[3][f.name] or 0) }
end
S.table("one workload, three sources (1 s on processor 0 of 2)",
  { "function", "cycles", "ProfileTime", "instructions", "TotalIssues", "cache misses", "CacheMisses" }, rows)
lab.log(("interrupts: ProfileTime %d, ProfileTotalIssues %d, ProfileCacheMisses %d"):format(
  res.interrupts.ProfileTime or 0, res.interrupts.ProfileTotalIssues or 0, res.interrupts.ProfileCacheMisses or 0))

for i, s in ipairs(sources) do
  local err = stats.max_abs_error(sampled[i], truth_shares[i])
  lab.check(err < 0.03, ("%s samples within 3 points of their truth (max error %.3f)"):format(s[1], err))
  lab.record{ [s[1] .. "_max_error"] = err }
end
lab.check(sampled[1].memcopy > 2 * sampled[2].memcopy, "time samples favour the slow memcopy far more than instruction samples do")
lab.check((sampled[3].memcopy or 0) > 0.97, "cache-miss samples land in memcopy, the only function that misses")
