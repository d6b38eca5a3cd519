-- The benchmark's run: a 4-processor machine (the default), a ProfileTime
-- profile at the HAL's default interval, and lab.params.duration_us of
-- simulated time (one second by default) on a four-function workload.
local lab = require "proflab"
local P = require "profile"

local m = lab.machine{}
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local pr = P.create_and_start(p, { base = 0x30000, size = 0x400, bucket = 8 })
local fns = {}
for i = 1, 4 do fns[i] = { name = "f" .. i, base = 0x30000 + (i - 1) * 0x100, size = 0x100, weight = i } end
local res = m:run{ duration_us = lab.params.duration_us or 1000000, workload = { process = p, functions = fns } }
lab.record{ samples = P.total(pr), interrupts = res.interrupts.ProfileTime or 0 }
