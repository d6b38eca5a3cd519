-- The scale measurement of issue 9 (run by .ci/scale): one m:run of
-- lab.params.seconds of simulated time on 4 processors, ProfileTime at
-- its fastest rate (interval 1221, 8192 Hz), with the NT Kernel Logger
-- tracing sampled profiles when lab.params.logger is true.
local lab = require "proflab"
local P = require "profile"

local seconds = lab.params.seconds or 1
local m = lab.machine{ cpus = 4 }
local p = m:process{ name = "app", privileges = { "SeSystemProfilePrivilege" } }
local pr = P.create_and_start(p, { base = 0x10000, size = 0xC00, bucket = 8 })
p:NtSetIntervalProfile(1221, lab.ProfileTime)
local s
if lab.params.logger then s = m:start_kernel_logger{ profile = true } end
local threads = {}
for cpu = 0, 3 do threads[#threads + 1] = { cpu = cpu } end
local r = m:run{ duration_us = seconds * 1000000, workload = { process = p, threads = threads, functions = {
  { name = "alpha", base = 0x10000, size = 0x400, weight = 5 },
  { name = "beta", base = 0x10400, size = 0x400, weight = 3 },
  { name = "gamma", base = 0x10800, size = 0x400, weight = 2, cache_miss_rate = 0.05 },
} } }
if s then s:stop() end
local n = 0
for _, c in ipairs(P.buckets(pr)) do n = n + c end
lab.log(("%d s simulated: %d samples, %d ProfileTime interrupts"):format(seconds, n, r.interrupts.ProfileTime))
lab.check(n > 0, "samples were taken")
