-- What Windows 10 itself reports (docs/reference/hal.md): the listing that
-- `tracelog -profilesources Help` and `wpr -pmcsources` print, made the
-- way they make it. They walk TraceQueryInformation class 7
-- (TraceProfileSourceListInfo) and, per record, query the source's current
-- interval with class 5 (TraceSampledProfileIntervalInfo), then print a
-- header line (`Id  Name  Interval  Min  Max`, spaced as Windows spaces
-- it), a rule of 62 dashes and a row per source in
-- "%3u %-25s%11u%6u%11u": id, the HAL's description, interval,
-- MinInterval, MaxInterval (a longer name pushes the columns right).
--
-- On an Intel Windows 10 machine the rows are Timer 10000/1221/1000000 and
-- the Emon sources 2 … 31 at 65536/4096/2147483647; on an AMD one the
-- Amd64 general sources, then the Amd64 processor-specific sources 25
-- (FPDispatchedFPUOps) … 191 (BUSharedToDirty) with their own names.
-- ProfileAlignmentFixup (1) never appears. The golden log is the listing,
-- byte for byte as the tools print it (scripts/tools_test.go compares it
-- with the published captures).
local lab = require "proflab"
local A = require "assert"
local S = require "tools.sources"

local function listing(vendor)
  local m = lab.machine{ version = "10.0.19041", cpu_vendor = vendor, hal = { "apic", "pmu" } }
  local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
  local rl = p:alloc(4)
  A.expect_win32(p:TraceQueryInformation(0, lab.TraceProfileSourceListInfo, nil, 0, rl), lab.ERROR_BAD_LENGTH, "a NULL buffer sizes the list")
  -- the tools' own walk of the list (scripts/tools/sources.lua), which
  -- wpr -pmcsources and tracelog -profilesources Help print
  local rows, err = S.list(p)
  A.expect_win32(err or lab.ERROR_SUCCESS, lab.ERROR_SUCCESS, "the source list and each source's interval")
  lab.log(("%s, Windows 10.0.19041:"):format(vendor))
  for _, line in ipairs(S.lines(rows)) do lab.log(line) end
  for _, r in ipairs(rows) do r.src = r.source end
  return rows
end

local intel = listing("GenuineIntel")
local ids = {}
for _, r in ipairs(intel) do ids[#ids + 1] = r.src end
A.expect_eq(ids, { 0, 2, 6, 10, 11, 19, 25, 26, 27, 28, 29, 30, 31 }, "Intel: Timer and the Emon sources 2 … 31")
A.expect_eq({ intel[1].name, intel[1].interval, intel[1].min, intel[1].max }, { "Timer", 10000, 1221, 1000000 }, "Intel: the Timer row")
A.expect_eq({ intel[2].name, intel[2].interval, intel[2].min, intel[2].max }, { "TotalIssues", 65536, 4096, 2147483647 }, "Intel: a counter row")

-- The interval column is live: a listing after a set shows the value set,
-- machine-wide (Microsoft's page shows TotalIssues at 698400 after a tool
-- set it).
do
  local m = lab.machine{ version = "10.0.19041", hal = { "apic", "pmu" } }
  local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
  local iv = p:alloc(8)
  A.expect_status(p:NtSetIntervalProfile(698400, lab.ProfileTotalIssues), lab.STATUS_SUCCESS, "set TotalIssues")
  p:write_u32(iv, lab.ProfileTotalIssues)
  A.expect_win32(p:TraceQueryInformation(0, lab.TraceSampledProfileIntervalInfo, iv, 8, 0), lab.ERROR_SUCCESS, "class 5")
  A.expect_eq(p:read_u32(iv + 4), 698400, "the listing's interval column after the set")
end

local amd = listing("AuthenticAMD")
A.expect_eq(#amd, 1 + 8 + 167, "AMD: Timer, 8 general sources, 0x19 … 0xBF")
local byid = {}
for _, r in ipairs(amd) do byid[r.src] = r.name end
A.expect_eq({ byid[25], byid[114], byid[124], byid[191] },
  { "FPDispatchedFPUOps", "FRRetiredTakenBranchesMispredictedByAddressMiscompare", "FRInterruptsMaskedCycles", "BUSharedToDirty" }, "AMD: the Amd64 names")
A.expect_eq({ byid[1], byid[10] }, { nil, nil }, "AMD: no AlignmentFixup, no CacheMisses")
