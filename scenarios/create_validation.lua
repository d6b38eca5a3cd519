-- Create validation: NtCreateProfile's checks and their order
-- (docs/reference/profile-objects.md#the-order-of-checks; conformance items 1–22).
-- BufferSize 0 is checked first (STATUS_INVALID_PARAMETER_7), then the
-- bucket range (2..0x1F), then the buffer size (defective up to 1607,
-- fixed in 1703), then the wrap of base + size, then (6.2+) the HAL's
-- support for the source, then the user-mode probes.
local lab = require "proflab"
local A = require "assert"

local function create(m, p, t)
  local hv = t.handle_ptr or p:alloc(8)
  local buf = t.buffer
  if buf == nil then buf = p:alloc(math.max(t.buffer_size, 1)) end
  return p:NtCreateProfile(hv, t.process or lab.NtCurrentProcess, t.base or 0x400000, t.size,
    t.bucket, buf, t.buffer_size, t.source or lab.ProfileTime, -1)
end

local cases = {
  -- version, what, arguments, expected status
  { "10.0.19041", "01 BufferSize 0", { size = 0x100, bucket = 4, buffer_size = 0 }, lab.STATUS_INVALID_PARAMETER_7 },
  { "10.0.19041", "02 BufferSize 0 beats BucketSize 40", { size = 0x100, bucket = 40, buffer_size = 0 }, lab.STATUS_INVALID_PARAMETER_7 },
  { "10.0.19041", "03 BucketSize 1", { size = 0x100, bucket = 1, buffer_size = 0x100 }, lab.STATUS_INVALID_PARAMETER },
  { "10.0.19041", "04 BucketSize 0x20", { size = 0x100, bucket = 0x20, buffer_size = 0x100 }, lab.STATUS_INVALID_PARAMETER },
  { "10.0.19041", "05 BucketSize 2, exact buffer", { size = 0x100, bucket = 2, buffer_size = 0x100 }, lab.STATUS_SUCCESS },
  { "10.0.19041", "06 BucketSize 0x1F", { size = 0x80000000, bucket = 0x1F, buffer_size = 4 }, lab.STATUS_SUCCESS },
  { "10.0.19041", "07 x64 BucketSize 0", { base = 0x1000, size = 0x100, bucket = 0, buffer_size = 0x100 }, lab.STATUS_INVALID_PARAMETER },
  { "10.0.15063", "11 1703: one byte too many", { size = 0x41, bucket = 4, buffer_size = 16 }, lab.STATUS_BUFFER_TOO_SMALL },
  { "10.0.14393", "12 1607: 79-byte region, 64-byte bucket, 4-byte buffer", { size = 79, bucket = 6, buffer_size = 4 }, lab.STATUS_SUCCESS },
  { "10.0.14393", "13 1607: 80 bytes is too many", { size = 80, bucket = 6, buffer_size = 4 }, lab.STATUS_BUFFER_TOO_SMALL },
  { "10.0.15063", "12 1703 rejects the 79-byte region", { size = 79, bucket = 6, buffer_size = 4 }, lab.STATUS_BUFFER_TOO_SMALL },
  { "10.0.19041", "15 region wraps", { base = lab.u64("0xFFFFFFFFFFFFF000"), size = 0x2000, bucket = 12, buffer_size = 8 }, lab.STATUS_BUFFER_OVERFLOW },
  { "10.0.19041", "16 too small is checked before the wrap", { base = lab.u64("0xFFFFFFFFFFFFF000"), size = 0x2000, bucket = 2, buffer_size = 8 }, lab.STATUS_BUFFER_TOO_SMALL },
  { "6.2", "17 unsupported source (ProfilePipelineDry)", { size = 0x100, bucket = 4, buffer_size = 0x100, source = lab.ProfilePipelineDry }, lab.STATUS_NOT_SUPPORTED },
  { "6.2", "18 ProfileAlignmentFixup as a source", { size = 0x100, bucket = 4, buffer_size = 0x100, source = lab.ProfileAlignmentFixup }, lab.STATUS_NOT_SUPPORTED },
  { "6.1", "19 6.1 has no HAL check", { size = 0x100, bucket = 4, buffer_size = 0x100, source = lab.ProfilePipelineDry }, lab.STATUS_SUCCESS },
  { "10.0.19041", "21 Buffer in kernel space", { size = 0x100, bucket = 4, buffer_size = 0x40, buffer = lab.u64("0xFFFFF80000000000") }, lab.STATUS_ACCESS_VIOLATION },
  { "10.0.19041", "22 ProfileHandle in kernel space", { size = 0x100, bucket = 4, buffer_size = 0x40, handle_ptr = lab.u64("0xFFFFF80000000000") }, lab.STATUS_ACCESS_VIOLATION },
}

for _, c in ipairs(cases) do
  local m = lab.machine{ version = c[1] }
  local p = m:process{}
  local st = create(m, p, c[3])
  A.expect_status(st, c[4], c[1] .. " " .. c[2])
  lab.log(("%-11s %-55s %s"):format(c[1], c[2], lab.status_name(st)))
end

-- 20: a Buffer that is not 4-byte aligned
do
  local m = lab.machine{}
  local p = m:process{}
  local buf = p:alloc(0x100)
  A.expect_status(create(m, p, { size = 0x100, bucket = 4, buffer_size = 0x40, buffer = buf + 2 }),
    lab.STATUS_DATATYPE_MISALIGNMENT, "20 misaligned Buffer")
  -- 21: a read-only buffer
  local ro = p:alloc(0x100, "r")
  A.expect_status(create(m, p, { size = 0x100, bucket = 4, buffer_size = 0x40, buffer = ro }),
    lab.STATUS_ACCESS_VIOLATION, "21 read-only Buffer")
end

-- 14: a region that exactly fills the buffer is accepted in every version
for _, v in ipairs({ "3.51", "4.0", "5.0", "5.1", "5.2", "6.0", "6.1", "6.2", "6.3", "10.0", "10.0.14393", "10.0.15063", "10.0.17134", "10.0.19041" }) do
  local m = lab.machine{ version = v }
  local p = m:process{}
  A.expect_status(create(m, p, { size = 16 * 64, bucket = 6, buffer_size = 16 * 4 }), lab.STATUS_SUCCESS, "14 exact fit on " .. v)
end
