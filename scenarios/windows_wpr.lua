-- wpr and tracelog re-created on the model
-- (docs/windows-tools.md): on Windows 10 (2004, x64) the sampled-profile
-- interval is 10000 (1 ms) until someone sets it; wpr -setprofint sets it
-- machine-wide through TraceSetInformation, NtQueryIntervalProfile and the
-- source listing then show the new value, and -resetprofint puts the
-- HAL's default back. wpr does not run before Windows 8.1; tracelog's
-- listing needs TraceQueryInformation (Windows 8). The golden log is what
-- the tools print.
local lab = require "proflab"
local A = require "assert"
local wpr = require "tools.wpr"
local tracelog = require "tools.tracelog"

local m = lab.machine{ version = "10.0.19041", hal = { "apic", "pmu" } }
local app = m:process{ name = "app" }
local iv = app:alloc(4)
local function interval(src)
  app:NtQueryIntervalProfile(src, iv)
  return app:read_u32(iv)
end

lab.log("> wpr -profint")
A.expect_eq(wpr.run(m, { "-profint" }).interval, 10000, "Windows 10's default timer interval")
lab.log("> wpr -setprofint 100000")
wpr.run(m, { "-setprofint", "100000" })
A.expect_eq(interval(lab.ProfileTime), 100000, "NtQueryIntervalProfile sees wpr's set")
lab.log("> wpr -setprofint 698400 TotalIssues")
wpr.run(m, { "-setprofint", "698400", "TotalIssues" })
lab.log("> tracelog -profilesources Help")
local list = tracelog.run(m, { "-profilesources", "Help" })
A.expect_eq({ list.rows[1].interval, list.rows[2].interval }, { 100000, 698400 }, "the listing's interval column is live")
lab.log("> wpr -resetprofint")
wpr.run(m, { "-resetprofint" })
A.expect_eq(interval(lab.ProfileTime), 10000, "back to the default")

local old = wpr.run(lab.machine{ version = "6.1", arch = "x86" }, { "-profint" })
lab.log("> wpr -profint on Windows 7: " .. old.error)
A.expect_eq(old.status, 2, "wpr refuses Windows 7")
