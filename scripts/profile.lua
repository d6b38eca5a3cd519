-- profile: create, start, read and stop profile objects in a few lines.
--
--   local P = require "profile"
--   local pr = P.create(p, { base = 0x400000, size = 0x1000, bucket = 4 })
--   P.start(pr)
--   m:interrupt{ cpu = 0, ip = 0x400010, process = p }
--   local counts = P.buckets(pr)    -- counts[1] is bucket 0
--
-- Fields of the spec (all optional but base and size):
--   process     a process handle, lab.NtCurrentProcess (default), or false for global
--   base, size  the profiled region (numbers or lab.u64)
--   bucket      log2 of the bucket size (default 4: 16-byte buckets)
--   buffer_size bytes for the counters (default: exactly enough)
--   buffer      an address to use instead of allocating one
--   source      a KPROFILE_SOURCE (default lab.ProfileTime)
--   affinity    a KAFFINITY (default -1: every active processor)
--   groups      for NtCreateProfileEx: { {mask = m, group = 0}, ... }
-- The result is a table { status, handle, buffer, buffer_size, count, caller };
-- handle is nil when the create failed.

local lab = require "proflab"

local M = {}

local function buckets_for(size, bucket)
  local b = 2 ^ bucket
  return math.ceil(lab.tonumber(lab.u64(size)) / b)
end

--- create(caller, spec) → profile table (status tells whether it worked)
function M.create(caller, spec)
  assert(type(spec) == "table", "profile.create: spec must be a table")
  assert(spec.base ~= nil and spec.size ~= nil, "profile.create: base and size are required")
  local bucket = spec.bucket or 4
  local count = buckets_for(spec.size, bucket)
  local buffer_size = spec.buffer_size or math.max(4 * count, 4)
  local buffer = spec.buffer or caller:alloc(buffer_size)
  local hv = caller:alloc(8)
  local process = spec.process
  if process == nil then process = lab.NtCurrentProcess end
  if process == false then process = 0 end
  local st
  if spec.groups then
    local ga = caller:alloc(16 * #spec.groups)
    for i, g in ipairs(spec.groups) do
      local at = ga + 16 * (i - 1)
      caller:write_u64(at, g.mask)
      caller:write_u16(at + 8, g.group or 0)
    end
    st = caller:NtCreateProfileEx(hv, process, spec.base, spec.size, bucket, buffer, buffer_size,
      spec.source or lab.ProfileTime, #spec.groups, ga)
  else
    st = caller:NtCreateProfile(hv, process, spec.base, spec.size, bucket, buffer, buffer_size,
      spec.source or lab.ProfileTime, spec.affinity or -1)
  end
  local pr = { status = st, buffer = buffer, buffer_size = buffer_size, count = count, caller = caller }
  if st == lab.STATUS_SUCCESS then
    pr.handle = caller:read_u32(hv) -- handles are small: the low ULONG is the value
  end
  return pr
end

--- start(pr) → NTSTATUS
function M.start(pr) return pr.caller:NtStartProfile(pr.handle) end

--- stop(pr) → NTSTATUS
function M.stop(pr) return pr.caller:NtStopProfile(pr.handle) end

--- close(pr) → NTSTATUS
function M.close(pr) return pr.caller:NtClose(pr.handle) end

--- create_and_start(caller, spec) → pr; raises an error if either fails.
function M.create_and_start(caller, spec)
  local pr = M.create(caller, spec)
  if pr.status ~= lab.STATUS_SUCCESS then
    error("NtCreateProfile failed: " .. lab.status_name(pr.status), 2)
  end
  local st = M.start(pr)
  if st ~= lab.STATUS_SUCCESS then
    error("NtStartProfile failed: " .. lab.status_name(st), 2)
  end
  return pr
end

--- buckets(pr [, n]) → array of the first n counters (default: pr.count)
function M.buckets(pr, n)
  return pr.caller:read_u32s(pr.buffer, n or pr.count)
end

--- total(pr) → the sum of the counters
function M.total(pr)
  local s = 0
  for _, v in ipairs(M.buckets(pr)) do s = s + v end
  return s
end

--- query_interval(caller, source) → interval, NTSTATUS
function M.query_interval(caller, source)
  local iv = caller:alloc(4)
  local st = caller:NtQueryIntervalProfile(source, iv)
  return caller:read_u32(iv), st
end

--- hal_rows(m, call, from) → the rows of m:hal_log() after index `from`
--- (default 0) whose call is `call` (nil: all)
function M.hal_rows(m, call, from)
  local out = {}
  for i, r in ipairs(m:hal_log()) do
    if i > (from or 0) and (call == nil or r.call == call) then out[#out + 1] = r end
  end
  return out
end

return M
