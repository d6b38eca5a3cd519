-- Sweep scenario: sampling error against the interval and the source.
-- One machine samples a ten-function workload with one profile source at
-- one interval (lab.params.source, lab.params.interval) for
-- lab.params.duration_us; the run records the sampled profile's total
-- variation distance to the ground truth and the number of samples.
-- Swept by sampling_error.toml; alone: proflab run sampling_error.lua
-- --set source=ProfileTime --set interval=10000 --set duration_us=100000
local lab = require "proflab"
local P = require "profile"
local S = require "sampling"
local stats = require "stats"

local source_name = lab.params.source or "ProfileTime"
local interval = lab.params.interval or 10000
local duration = lab.params.duration_us or 100000
local source = lab[source_name]
assert(type(source) == "number", "lab.params.source: no profile source " .. tostring(source_name))

local base = 0x30000
local fns = {}
for i, w in ipairs({ 30, 20, 15, 10, 8, 6, 5, 3, 2, 1 }) do
  fns[i] = { name = ("f%02d"):format(i), base = base + (i - 1) * 0x100, size = 0x100, weight = w }
end

local m = lab.machine{ cpus = 1 }
local p = m:process{ name = "app", privileges = { "SeSystemProfilePrivilege" } }
local pr = P.create_and_start(p, { base = base, size = 0xA00, bucket = 8, source = source })
lab.check(p:NtSetIntervalProfile(interval, source) == lab.STATUS_SUCCESS, "the interval is set")
local res = m:run{ duration_us = duration, workload = { process = p, functions = fns } }
local sampled = S.by_function(P.buckets(pr), base, 8, fns)
local n = stats.total(sampled)
lab.check(n > 0, "the profile got samples")
local tv = stats.total_variation(sampled, S.truth(res, fns, source == lab.ProfileTime and "cycles" or "instructions"))
lab.record{ samples = n, tv_distance = tv, tv_sqrt_n = tv * math.sqrt(n) }
