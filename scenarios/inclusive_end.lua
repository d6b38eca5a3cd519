-- The Windows 8 inclusive-end defect (docs/reference/interrupt.md;
-- conformance items 63–64; [GC-bugdemo]). From 6.2 to 1803 the range test accepts
-- ip == RangeLimit, so an exact-fit buffer gets an increment at index N,
-- the ULONG just past it. When the buffer ends on a page, that write
-- faults at profile IRQL: bug check 0x0A with the IRQL as argument 2 —
-- even if the user mapped the next page, since the kernel writes through
-- its own system mapping of exactly the locked pages. Fixed in 1809.
local lab = require "proflab"
local A = require "assert"
local P = require "profile"

local BASE = 0x400000

lab.log("version      arch  ip = RangeLimit")
for _, c in ipairs({
  { "6.1", "x64", false }, { "6.2", "x64", true }, { "6.2", "x86", true }, { "6.3", "x64", true },
  { "10.0.17134", "x64", true }, { "10.0.17763", "x64", false }, { "10.0.19041", "x64", false },
}) do
  local m = lab.machine{ version = c[1], arch = c[2], cpus = 1 }
  local p = m:process{}
  local buf = p:alloc(0x1000)          -- ends exactly at its guard page
  p:alloc_at(buf + 0x1000, 0x1000)     -- the user maps the next page anyway
  local pr = P.create_and_start(p, { base = BASE, size = 0x1000, bucket = 2, buffer = buf, buffer_size = 0x1000 })
  local ok, bc = m:interrupt{ cpu = 0, ip = BASE + 0x1000, process = p }
  if c[3] then
    A.expect_eq(ok, false, c[1] .. " " .. c[2] .. ": the interrupt bug-checks")
    A.expect_eq(bc and bc.code, lab.IRQL_NOT_LESS_OR_EQUAL, c[1] .. ": IRQL_NOT_LESS_OR_EQUAL")
    A.expect_eq(bc and bc.params[2], c[2] == "x64" and 0x0F or 0x1F, c[1] .. ": argument 2 is the profile IRQL")
    A.expect_eq(m:bugcheck().code, 0x0A, "m:bugcheck() reports it")
    A.expect_eq(p:read_u32(buf + 0x1000), 0, "the user's next page was not written")
    A.expect_error(function() p:NtStopProfile(pr.handle) end, "IRQL_NOT_LESS_OR_EQUAL", "a bug-checked machine refuses work")
    lab.log(("%-12s %-5s bug check 0x%02X (%s, IRQL 0x%X)"):format(c[1], c[2], bc.code, bc.name, bc.params[2]))
  else
    A.expect_eq(ok, true, c[1] .. ": no bug check")
    A.expect_eq(P.total(pr), 0, c[1] .. ": nothing counted")
    lab.log(("%-12s %-5s not counted"):format(c[1], c[2]))
  end
end

-- With a buffer that does not end a page the write past the end is
-- silent: the ULONG after the counters just goes up.
local m = lab.machine{ version = "6.2" }
local p = m:process{}
local pr = P.create_and_start(p, { base = BASE, size = 0x40, bucket = 4 }) -- 16 bytes of counters at a page start
m:interrupt{ cpu = 0, ip = BASE + 0x40, process = p }
A.expect_eq(p:read_u32(pr.buffer + 16), 1, "64 the ULONG past the buffer was incremented")
A.expect_eq(m:bugcheck(), nil, "no bug check")
