-- Checks wpr's and tracelog's printed figures against the same quantities
-- read through the scenario API (run by scripts/tools_test.go with the
-- param version): intervals with NtQueryIntervalProfile and a run's
-- hardware, the listing with the HALs' own description of their sources.
local lab = require "proflab"
local A = require "assert"
local wpr = require "tools.wpr"
local tracelog = require "tools.tracelog"

local m = lab.machine{ version = lab.params.version }
local obs = m:process{ name = "observer" }
local iv = obs:alloc(4)
local function query(src)
  A.expect_success(obs:NtQueryIntervalProfile(src, iv), "NtQueryIntervalProfile")
  return obs:read_u32(iv)
end
local function printed(res)
  A.expect_eq(res.status, 0, "status (" .. tostring(res.error) .. ")")
  A.expect_eq(#res.lines, 1, "one line")
  local word, n, ms = res.lines[1]:match("^(%a+) Profile Interval = (%d+) %[(%d+%.%d%d%d%d)ms%]$")
  if not word then word, n = res.lines[1]:match("^(%a+) Profile Interval = (%d+)$") end
  return word, tonumber(n), tonumber(ms)
end
-- hw is the timer's interval a short run's hardware has, under a profile
-- of the observer's own
local function hw()
  local buf, hv = obs:alloc(0x100), obs:alloc(8)
  A.expect_success(obs:NtCreateProfile(hv, lab.NtCurrentProcess, 0x10000, 0x100, 4, buf, 0x100, lab.ProfileTime, -1), "create")
  local h = obs:read_u32(hv)
  A.expect_success(obs:NtStartProfile(h), "start")
  local r = m:run{ duration_us = 20000, workload = { process = obs, functions = { { name = "f", base = 0x10000, size = 0x100, weight = 1 } } } }
  obs:NtClose(h)
  return r.intervals.ProfileTime
end

-- -profint: the timer's interval, as NtQueryIntervalProfile and the
-- run's hardware have it
local word, n, ms = printed(wpr.run(m, { "-profint" }, { quiet = true }))
A.expect_eq(word, "Current", "-profint's word")
A.expect_eq(n, query(lab.ProfileTime), "-profint is NtQueryIntervalProfile(ProfileTime)")
A.expect_eq(n, hw(), "-profint is the timer the hardware runs")
A.expect_near(ms, n / 10000, 0.00005, "the milliseconds are the interval / 10000")

-- -setprofint: the new interval is the one in force
word, n, ms = printed(wpr.run(m, { "-setprofint", "50000" }, { quiet = true }))
A.expect_eq({ word, n, ms }, { "New", 50000, 5 }, "-setprofint 50000")
A.expect_eq(query(lab.ProfileTime), 50000, "NtQueryIntervalProfile after -setprofint")
A.expect_eq(hw(), 50000, "the hardware after -setprofint")

-- -setprofint past the HAL's maximum on 10.0 (1000000): the HAL clamps,
-- and wpr prints what is in force
if lab.params.version:match("^10") then
  word, n = printed(wpr.run(m, { "-setprofint", "5000000" }, { quiet = true }))
  A.expect_eq(n, query(lab.ProfileTime), "a clamped set prints the interval in force")
  A.expect_eq(n, 1000000, "the 10.0 timer's maximum")
end

-- -resetprofint: the HAL's default
local default
for _, s in ipairs(m:hal_sources()) do
  if s.source == lab.ProfileTime then default = s.default end
end
word, n = printed(wpr.run(m, { "-resetprofint" }, { quiet = true }))
A.expect_eq(n, default, "-resetprofint restores the HAL's default")
A.expect_eq(query(lab.ProfileTime), default, "NtQueryIntervalProfile after -resetprofint")

-- a counter source by name
word, n = printed(wpr.run(m, { "-setprofint", "20000", "totalissues" }, { quiet = true }))
A.expect_eq(n, 20000, "-setprofint 20000 TotalIssues")
A.expect_eq(query(lab.ProfileTotalIssues), 20000, "NtQueryIntervalProfile(TotalIssues)")

-- -pmcsources and tracelog -profilesources Help: the same listing, whose
-- rows are the HALs' sources with the intervals in force
local list = wpr.run(m, { "-pmcsources" }, { quiet = true })
local tl = tracelog.run(m, { "-profilesources", "Help" }, { quiet = true })
A.expect_eq(tl.lines, list.lines, "tracelog prints wpr's listing")
local hal = {}
for _, s in ipairs(m:hal_sources()) do hal[#hal + 1] = s end
local S = require "tools.sources"
A.expect_eq({ list.lines[1], list.lines[2] }, { S.HEADER, S.RULE }, "the header line and the rule")
A.expect_eq(#list.lines, 2 + #hal, "the header, the rule and a row per source a HAL has")
for i = 1, #hal do
  local line = list.lines[2 + i]
  local id, name, cur, min, max = line:match("^%s*(%d+) (%S+)%s+(%d+)%s+(%d+)%s+(%d+)$")
  id = tonumber(id)
  A.expect_eq({ id, name, tonumber(cur), tonumber(min), tonumber(max) },
    { hal[i].source, hal[i].description, query(id), hal[i].min, hal[i].max }, "row " .. i)
end

-- refusals
A.expect_eq(wpr.run(m, { "-setprofint", "1220" }, { quiet = true }).status, 2, "below wpr's range")
A.expect_eq(wpr.run(m, { "-setprofint", "10000001" }, { quiet = true }).status, 2, "above wpr's range")
A.expect_eq(wpr.run(m, { "-profint", "NoSuchSource" }, { quiet = true }).status, 2, "an unknown source")
A.expect_eq(wpr.run(m, { "-start", "CPU" }, { quiet = true }).status, 2, "recording is out of reach")
local old = lab.machine{ version = "6.2" }
A.expect_eq(wpr.run(old, { "-profint" }, { quiet = true }).status, 2, "wpr refuses 6.2")
A.expect_eq(tracelog.run(old, { "-profilesources", "Help" }, { quiet = true }).status, 0, "tracelog lists on 6.2")
A.expect_eq(tracelog.run(lab.machine{ version = "6.1" }, { "-profilesources", "Help" }, { quiet = true }).status, 2, "tracelog refuses 6.1")
