-- Sweep scenario: attribution error of a skidding counter versus PEBS.
-- A hot function is followed by one that never runs; every sample landing
-- in the cold one is an attribution error. lab.params.hal is "pmu" (skid
-- of 1–4 instructions) or "pebs" (the precise IP, with control areas);
-- lab.params.interval is the ProfileTotalIssues interval.
local lab = require "proflab"
local P = require "profile"
local S = require "sampling"

local hal = lab.params.hal or "pmu"
local interval = lab.params.interval or 10007
local base = 0x20000
local fns = {
  { name = "hot",  base = base,        size = 0x40, weight = 1 },
  { name = "cold", base = base + 0x40, size = 0x40, weight = 0 },
}

local m = lab.machine{ cpus = 1, hal = { "apic", hal } }
if hal == "pebs" then S.control_areas(m) end
local p = m:process{ name = "app", privileges = { "SeSystemProfilePrivilege" } }
local pr = P.create_and_start(p, { base = base, size = 0x80, bucket = 6, source = lab.ProfileTotalIssues })
lab.check(p:NtSetIntervalProfile(interval, lab.ProfileTotalIssues) == lab.STATUS_SUCCESS, "the interval is set")
m:run{ duration_us = lab.params.duration_us or 50000, workload = { process = p, functions = fns } }
local by = S.by_function(P.buckets(pr), base, 6, fns)
local total = by.hot + by.cold
lab.check(total > 0, "the counter interrupted")
lab.record{ samples = total, attribution_error = total > 0 and by.cold / total or 0 }
