-- Sweep scenario: the Windows 8 inclusive-end defect over random profile
-- layouts (docs/reference/interrupt.md; conformance items 63–64). Each run draws a
-- layout from its seed: a profiled range, a bucket size and a buffer that
-- fits exactly, placed at the end of its page or not; then the profile
-- interrupt hits an instruction pointer drawn in the range or at its end
-- (RangeLimit). The run records whether the machine bug-checked. The
-- version comes from the sweep's [config] table (machine.version), so the
-- scenario does not name it. From 6.2 to 1803 an interrupt at RangeLimit
-- writes the ULONG after the buffer and bug-checks when that crosses into
-- the guard page; 6.1 and 1809+ never count it.
local lab = require "proflab"
local P = require "profile"

local m = lab.machine{ cpus = 1 }
local p = m:process{}
local bucket = math.random(2, 6)
local count = math.random(1, 64)
local size = count * 2 ^ bucket
local base = 0x400000 + 0x1000 * math.random(0, 15)
local buffer_size = 4 * count
local page = p:alloc(0x1000)
local buf = page
if math.random() < 0.5 then buf = page + 0x1000 - buffer_size end -- ends on the guard page
local pr = P.create_and_start(p, { base = base, size = size, bucket = bucket, buffer = buf, buffer_size = buffer_size })
local ip = base + math.random(0, size / 4) * 4
if math.random() < 0.5 then ip = base + size end -- RangeLimit
local ok, bc = m:interrupt{ cpu = 0, ip = ip, process = p }
lab.record{
  crashed = ok and 0 or 1,
  at_limit = (ip == base + size) and 1 or 0,
  bugcheck = bc and bc.code or 0,
}
