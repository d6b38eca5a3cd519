-- A test scenario for sweeps: one machine, a ProfileTime profile at
-- lab.params.interval through lab.params.hal, a short run, and records
-- that depend on the seed (math.random) and the parameters. mode = "fail"
-- fails a check, mode = "raise" raises a Lua error; logger = true runs the
-- NT Kernel Logger (its events are spooled to a temporary file).
local lab = require "proflab"
local P = require "profile"

local m = lab.machine{ cpus = 1, hal = { lab.params.hal or "apic" } }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
if lab.params.logger then m:start_kernel_logger{ profile = true } end
local pr = P.create_and_start(p, { base = 0x30000, size = 0x100, bucket = 4 })
p:NtSetIntervalProfile(lab.params.interval or 10000, lab.ProfileTime)
local res = m:run{ duration_us = lab.params.duration_us or 2000,
  workload = { process = p, functions = { { name = "f", base = 0x30000, size = 0x100, weight = 1 } } } }
if lab.params.mode == "raise" then error("asked to raise") end
lab.check(lab.params.mode ~= "fail", "asked to fail")
lab.record{ draw = math.random(), samples = P.total(pr) }
