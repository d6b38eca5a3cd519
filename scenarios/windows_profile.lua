-- proflab profile's program (tools.profile, docs/workload-import.md "How
-- would Windows see my program?") from a scenario: a perf --call-graph
-- dwarf recording, profiled on Windows 7's default timer for 2 simulated
-- seconds. workloads/prog_dwarf.txt is made by hand in perf script's
-- layout: 400 samples of 250000 cpu-clock events of a program "prog" —
-- compute 200, hash_block 120 and main 10 in prog, memcpy 40 in libc.so.6,
-- _dl_relocate_object 20 and do_lookup_x 10 in ld-linux-x86-64.so.2, whose
-- start-up runs first. The loader's offsets (0x1000…) lie below the
-- program's (0x41000…), so the workload's first image in address order is
-- the loader: the profiler must find the program by its samples
-- (program.images), not by its place.
local lab = require "proflab"
local A = require "assert"
local prof = require "tools.profile"
local Prog = require "program"

local W = "workloads/prog_dwarf.txt"
local info = lab.machine{ version = "6.1" }:images{ workload = W }
A.expect_eq(info.images[1].name, "ld-linux-x86-64.so.2", "the loader is first in address order")
A.expect_eq(Prog.image(info).name, "prog", "the program's image holds most of the samples")

local res = prof.run{ workload = W, version = "6.1", duration_us = 2000000 }
A.expect_eq(res.status, 0, "profile ran")
local names = {}
for _, im in ipairs(res.images) do names[#names + 1] = im.name end
A.expect_eq(table.concat(names, " "), "prog libc.so.6 ld-linux-x86-64.so.2", "the program's images, the most samples first")
A.expect_eq(res.interval, 39063, "Windows 7's default timer interval (100 ns units)")
A.expect_eq(res.run.intervals.ProfileTime, res.interval, "the run sampled at it")

-- each image's share of the hits is within sampling error of its share of
-- the source's samples (4 standard errors of the hits' binomial share)
local hits = 0
for _, im in ipairs(res.images) do hits = hits + im.hits end
lab.check(hits > 400, "about 512 hits in 2 s at 256 Hz: " .. hits)
for _, im in ipairs(res.images) do
  local se = math.sqrt(im.share * (1 - im.share) / hits)
  A.expect_near(im.hits / hits, im.share, 4 * se, im.name .. "'s share of the hits")
end
