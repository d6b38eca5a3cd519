-- Sampling error against the number of samples (docs/architecture.md#workloads-and-ground-truth;
-- intervals from docs/reference/hal.md#interval-bounds). The same workload is
-- sampled by ProfileTime at intervals from 39063 down to the HAL's minimum
-- 1221: the distance between the sampled profile and the ground truth
-- shrinks roughly as 1/sqrt(samples).
local lab = require "proflab"
local P = require "profile"
local S = require "sampling"
local stats = require "stats"

local base = 0x30000
local fns = {}
local weights = { 30, 20, 15, 10, 8, 6, 5, 3, 2, 1 }
for i, w in ipairs(weights) do
  fns[i] = { name = ("f%02d"):format(i), base = base + (i - 1) * 0x100, size = 0x100, weight = w }
end

local rows, errors = {}, {}
for i, interval in ipairs({ 39063, 19531, 9766, 4883, 2441, 1221 }) do
  local m = lab.machine{ cpus = 1, hal = { "apic" }, seed = i }
  local p = m:process{ name = "app", privileges = { "SeSystemProfilePrivilege" } }
  local pr = P.create_and_start(p, { base = base, size = 0xA00, bucket = 8 })
  p:NtSetIntervalProfile(interval, lab.ProfileTime)
  local res = m:run{ duration_us = 500000, workload = { process = p, functions = fns } }
  local sampled = S.by_function(P.buckets(pr), base, 8, fns)
  local n = stats.total(sampled)
  local tv = stats.total_variation(sampled, S.truth(res, fns, "cycles"))
  errors[i] = { n = n, tv = tv }
  rows[#rows + 1] = { interval, n, tv, tv * math.sqrt(n) }
end
S.table("ProfileTime over 0.5 s: distance to the truth against samples", { "interval", "samples", "TV distance", "TV x sqrt(n)" }, rows)

lab.check(errors[#errors].tv < errors[1].tv, "32 times the samples, a smaller error")
for i, e in ipairs(errors) do
  lab.check(e.tv * math.sqrt(e.n) < 2.5, ("row %d: error within the 1/sqrt(n) law (%.2f)"):format(i, e.tv * math.sqrt(e.n)))
end
lab.record{ tv_fewest = errors[1].tv, tv_most = errors[#errors].tv }
