-- A scenario through the custom HAL: its counters report an IP exactly
-- `skid` instructions after the overflowing one, so a hot function of 16
-- instructions followed by one that never runs loses skid/16 of its
-- samples to its neighbour.
--
--   go build -o bin/fixed-skid ./examples/custom-hal
--   bin/proflab run examples/custom-hal/skid.lua --config examples/custom-hal/lab.toml --set skid=5
--
-- (lab.toml names the plugin [hal.skid] and gives it `skid = 5`; --set
-- tells this scenario what to expect.)
local lab = require "proflab"
local P = require "profile"

local skid = lab.params.skid or 5
local base = 0x20000
local m = lab.machine{ cpus = 1, hal = { "apic", "skid" } }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local pr = P.create_and_start(p, { base = base, size = 0x80, bucket = 6, source = lab.ProfileTotalIssues })
p:NtSetIntervalProfile(10007, lab.ProfileTotalIssues)
m:run{ duration_us = 100000, workload = { process = p, functions = {
  { name = "hot", base = base, size = 0x40, weight = 1 },        -- 16 instructions of 4 bytes
  { name = "cold", base = base + 0x40, size = 0x40, weight = 0 }, -- never runs
} } }

local b = P.buckets(pr)
local share = b[2] / (b[1] + b[2])
lab.log(("hot %d, cold %d: %.1f%% of the samples land %d instructions late, in cold"):format(b[1], b[2], 100 * share, skid))
lab.check(b[1] + b[2] > 1000, "the counter interrupted often")
lab.check(math.abs(share - skid / 16) < 0.02, ("cold's share %.3f is skid/16 = %.3f"):format(share, skid / 16))
lab.record{ cold_share = share }
