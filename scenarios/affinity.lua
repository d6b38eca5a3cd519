-- Affinity (docs/reference/profile-objects.md; conformance items 23–31, 59).
-- From 6.1 the affinity is validated at create (-1 means the active
-- processors; 0x00000000FFFFFFFF is the WOW64 quirk); before 6.1 it is
-- only acted on at start, where an empty mask means every processor.
local lab = require "proflab"
local A = require "assert"
local P = require "profile"

local BASE = 0x400000

-- 59: a processor outside the affinity does not count
do
  local m = lab.machine{ cpus = 4 }
  local p = m:process{}
  local pr = P.create_and_start(p, { base = BASE, size = 0x40, affinity = 0x3 })
  m:interrupt{ cpu = 3, ip = BASE, process = p }
  m:interrupt{ cpu = 1, ip = BASE, process = p }
  A.expect_eq(P.buckets(pr), { 1, 0, 0, 0 }, "59 only cpu 1's interrupt counts")
  local started = {}
  for _, r in ipairs(P.hal_rows(m, "start")) do started[#started + 1] = r.cpu end
  A.expect_eq(started, { 0, 1 }, "55 HalStartProfileInterrupt on the selected processors")
end

-- 23–27: NtCreateProfileEx's GROUP_AFFINITY array (x64 layout)
for _, c in ipairs({
  { "23 GroupCount 0", nil, lab.STATUS_SUCCESS },
  { "23 a valid mask", { { mask = 0x5 } }, lab.STATUS_SUCCESS },
  { "24 group 1 does not exist", { { mask = 0x1, group = 1 } }, lab.STATUS_INVALID_PARAMETER },
  { "25 an empty mask", { { mask = 0 } }, lab.STATUS_INVALID_PARAMETER },
  { "26 an inactive processor", { { mask = 0x10 } }, lab.STATUS_INVALID_PARAMETER },
}) do
  local m = lab.machine{ version = "6.1", cpus = 4 }
  local p = m:process{}
  local st
  if c[2] == nil then
    st = p:NtCreateProfileEx(p:alloc(8), lab.NtCurrentProcess, BASE, 0x40, 4, p:alloc(16), 16, lab.ProfileTime, 0, nil)
  else
    st = P.create(p, { base = BASE, size = 0x40, groups = c[2], check = false }).status
  end
  A.expect_status(st, c[3], c[1])
end
do -- 27: Reserved must be zero
  local m = lab.machine{ version = "10.0.19041", cpus = 4 }
  local p = m:process{}
  local ga = p:alloc(16)
  p:write_u64(ga, 1)
  p:write_u16(ga + 10, 1)
  A.expect_status(p:NtCreateProfileEx(p:alloc(8), lab.NtCurrentProcess, BASE, 0x40, 4, p:alloc(16), 16, lab.ProfileTime, 1, ga),
    lab.STATUS_INVALID_PARAMETER, "27 non-zero Reserved")
end

-- 28/29: -1 and the WOW64 0xFFFFFFFF on x64
do
  local m = lab.machine{ version = "6.1", cpus = 4 }
  local p = m:process{}
  A.expect_status(P.create(p, { base = BASE, size = 0x40, affinity = -1 }).status, lab.STATUS_SUCCESS, "28 Affinity -1")
  A.expect_status(P.create(p, { base = BASE, size = 0x40, affinity = 0xFFFFFFFF, check = false }).status, lab.STATUS_INVALID_PARAMETER, "29 WOW64 0xFFFFFFFF on 4 processors")
end

-- 30/31: before 6.1 the mask is acted on at start
for _, c in ipairs({
  { "6.0", 0, 4, "30 affinity 0 profiles every processor" },
  { "5.1", 0x400, 4, "31 a mask of inactive processors means all (4.0 SP4+)" },
  { "3.51", 0x400, 0, "31 NT 3.51: a mask of inactive processors never counts" },
}) do
  local m = lab.machine{ version = c[1], cpus = 4 }
  local p = m:process{}
  local pr = P.create_and_start(p, { base = BASE, size = 0x40, affinity = c[2] })
  for cpu = 0, 3 do m:interrupt{ cpu = cpu, ip = BASE, process = p } end
  A.expect_eq(P.buckets(pr)[1], c[3], c[4])
end
