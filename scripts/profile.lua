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
--   check       false: return failed statuses instead of raising (default true)
-- The result is a table { status, handle, buffer, buffer_size, count, caller, check };
-- handle is nil when the create failed.
--
-- Every function checks its arguments and options (lab.arguments,
-- lab.options): a key a spec does not have ("sorce") or a value of the
-- wrong type is an error at the scenario's line, naming the key and the
-- nearest one.
--
-- create, start, stop and close raise an error on a failed status, naming
-- the helper, the service, the status and the scenario's line. A profile
-- created with check = false returns its statuses from all four (the
-- failure tests of scenarios/), and each call can say check = false too:
-- P.start(pr, { check = false }).

local lab = require "proflab"

local M = {}

-- the options of create's spec, of a group of its groups, and of a call
local SPEC = { process = "integer|false", base = "integer", size = "integer", bucket = "integer",
  buffer_size = "integer", buffer = "integer", source = "integer", affinity = "integer",
  groups = "table", check = "boolean" }
local GROUP = { mask = "integer", group = "integer" }
local CALL = { check = "boolean" }

local function buckets_for(size, bucket)
  local b = 2 ^ bucket
  return math.ceil(lab.tonumber(lab.u64(size)) / b)
end

-- Error levels: proflab's Lua counts the Go function error itself as
-- level 1, so a Lua function's caller is level 3 (not 2, as in C Lua).
-- The helpers make no tail calls, so that no frame is lost.

-- checked raises when st is a failure and check is on, at the scenario's
-- line: level is error()'s level of the scenario as seen from checked (4
-- when a helper called checked).
local function checked(st, check, helper, service, level)
  if check and st ~= lab.STATUS_SUCCESS then
    error(("profile.%s: %s returned %s; pass check = false to get the status instead of this error"):format(
      helper, service, lab.status_name(st)), level)
  end
  return st
end

-- check_of reads the check option of a call: opts.check, else the
-- profile's (its create spec's), else true.
local function check_of(pr, opts, helper)
  lab.arguments("profile." .. helper, { "pr:table" }, pr)
  opts = lab.options("profile." .. helper, opts, CALL)
  if opts.check ~= nil then return opts.check end
  return pr.check ~= false
end

-- create is profile.create for helper, raising at the line of the
-- scenario that called helper (helper called create); force raises on a
-- failed status whatever spec.check says.
local function create(caller, spec, helper, force)
  lab.arguments("profile." .. helper, { "caller:object", "spec:table" }, caller, spec)
  lab.options("profile." .. helper, spec, SPEC)
  if spec.base == nil or spec.size == nil then error(("profile.%s: base and size are required"):format(helper), 4) end
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
      local name = ("profile.%s: groups[%d]"):format(helper, i)
      lab.options(name, g, GROUP)
      if g.mask == nil then error(name .. ": mask is required ({ mask = 0x3, group = 0 })", 4) end
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
  local check = spec.check ~= false
  local pr = { status = st, buffer = buffer, buffer_size = buffer_size, count = count, caller = caller, check = check }
  if st == lab.STATUS_SUCCESS then
    pr.handle = caller:read_u32(hv) -- handles are small: the low ULONG is the value
  end
  checked(st, check or force, helper, spec.groups and "NtCreateProfileEx" or "NtCreateProfile", 5)
  return pr
end

--- create(caller, spec) → profile table; raises on a failed status unless spec.check == false
function M.create(caller, spec)
  local pr = create(caller, spec, "create")
  return pr
end

--- start(pr [, opts]) → NTSTATUS; raises on a failure unless opts.check or pr.check is false
function M.start(pr, opts)
  local check = check_of(pr, opts, "start")
  local st = checked(pr.caller:NtStartProfile(pr.handle), check, "start", "NtStartProfile", 4)
  return st
end

--- stop(pr [, opts]) → NTSTATUS; raises on a failure unless opts.check or pr.check is false
function M.stop(pr, opts)
  local check = check_of(pr, opts, "stop")
  local st = checked(pr.caller:NtStopProfile(pr.handle), check, "stop", "NtStopProfile", 4)
  return st
end

--- close(pr [, opts]) → NTSTATUS; raises on a failure unless opts.check or pr.check is false
function M.close(pr, opts)
  local check = check_of(pr, opts, "close")
  local st = checked(pr.caller:NtClose(pr.handle), check, "close", "NtClose", 4)
  return st
end

--- create_and_start(caller, spec) → pr; raises an error if either fails (whatever spec.check says).
function M.create_and_start(caller, spec)
  local pr = create(caller, spec, "create_and_start", true)
  checked(pr.caller:NtStartProfile(pr.handle), true, "create_and_start", "NtStartProfile", 4)
  return pr
end

--- buckets(pr [, n]) → array of the first n counters (default: pr.count)
function M.buckets(pr, n)
  lab.arguments("profile.buckets", { "pr:table", "n:integer|nil" }, pr, n)
  return pr.caller:read_u32s(pr.buffer, n or pr.count)
end

--- total(pr) → the sum of the counters
function M.total(pr)
  lab.arguments("profile.total", { "pr:table" }, pr)
  local s = 0
  for _, v in ipairs(M.buckets(pr)) do s = s + v end
  return s
end

--- query_interval(caller, source) → interval, NTSTATUS
function M.query_interval(caller, source)
  lab.arguments("profile.query_interval", { "caller:object", "source:integer" }, caller, source)
  local iv = caller:alloc(4)
  local st = caller:NtQueryIntervalProfile(source, iv)
  return caller:read_u32(iv), st
end

--- hal_rows(m, call, from) → the rows of m:hal_log() after index `from`
--- (default 0) whose call is `call` (nil: all)
function M.hal_rows(m, call, from)
  lab.arguments("profile.hal_rows", { "m:object", "call:string|nil", "from:integer|nil" }, m, call, from)
  local out = {}
  for i, r in ipairs(m:hal_log()) do
    if i > (from or 0) and (call == nil or r.call == call) then out[#out + 1] = r end
  end
  return out
end

return M
