-- The reference's listings printed with the reference's own format
-- strings (docs/scenario-api.md, "string.format"): string.format is Lua
-- 5.1's, so "%3u %-25s%11u%6u%11u", the row of `tracelog -profilesources
-- Help` and `wpr -pmcsources` (docs/windows-tools.md), gives the rows the
-- published captures show, header and rule included, and
-- "Current Profile Interval = %u [%.4fms]" the line of `wpr -profint`.
-- A u64 (a kernel address) prints all its 64 bits in every integer
-- conversion. The golden log is the listings.
local lab = require "proflab"
local A = require "assert"
local S = require "tools.sources"

local ROW = "%3u %-25s%11u%6u%11u"

local m = lab.machine{ version = "10.0.19041", hal = { "apic", "pmu" } }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }

-- wpr -profint: the timer's interval in 100 ns units, then in ms
local iv = p:alloc(4)
A.expect_status(p:NtQueryIntervalProfile(lab.ProfileTime, iv), lab.STATUS_SUCCESS, "the timer's interval")
local profint = ("Current Profile Interval = %u [%.4fms]"):format(p:read_u32(iv), p:read_u32(iv) / 10000)
lab.log(profint)
A.expect_eq(profint, "Current Profile Interval = 10000 [1.0000ms]", "wpr -profint as Microsoft's page prints it")

-- the source listing, after a tool set TotalIssues (Microsoft's page
-- shows it at 698400)
A.expect_status(p:NtSetIntervalProfile(698400, lab.ProfileTotalIssues), lab.STATUS_SUCCESS, "set TotalIssues")
local rows, err = S.list(p)
A.expect_win32(err or lab.ERROR_SUCCESS, lab.ERROR_SUCCESS, "the source list and each source's interval")
local lines = {}
for _, r in ipairs(rows) do
  lines[#lines + 1] = ROW:format(r.source, r.name, r.interval, r.min, r.max)
end
lab.log("Id  Name                        Interval  Min      Max")
lab.log(("-"):rep(62))
for _, line in ipairs(lines) do lab.log(line) end
A.expect_eq(lines[1], "  0 Timer                          10000  1221    1000000", "the Timer row of the published captures")
A.expect_eq(lines[2], "  2 TotalIssues                   698400  4096 2147483647", "a counter row after the set")
A.expect_eq(ROW:format(rows[2].source, rows[2].name, rows[2].interval, rows[2].min, rows[2].max),
  ("%3d %-25s%11d%6d%11d"):format(rows[2].source, rows[2].name, rows[2].interval, rows[2].min, rows[2].max),
  "%u and %d agree on values below 2^63")

-- a u64: a kernel address above 2^63, exact in every integer conversion
local k = m:kernel{ cpu = 0 }
local a = k:alloc(4096)
lab.log(("kernel buffer %s: %%016X %016X  %%u %u  %%d %d  %%o %o  %%#x %#x"):format(a, a, a, a, a, a))
A.expect_eq(("%016X|%u|%d|%o|%#x"):format(a, a, a, a, a),
  "FFFFB00000000000|18446656112779329536|18446656112779329536|1777775400000000000000|0xffffb00000000000",
  "all 64 bits of a u64, %d as its unsigned value")
A.expect_eq(("%x %X"):format(-1, 255), "ffffffffffffffff FF", "a negative number as C's (unsigned long) cast")
