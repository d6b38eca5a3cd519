-- sampling: compare sampled profiles with the ground truth of m:run, and
-- print readable tables.
--
--   local S = require "sampling"
--   local fns = { { name = "f", base = 0x10000, size = 0x400, weight = 1 }, ... }
--   local by_fn = S.by_function(P.buckets(pr), base, bucket, fns)   -- name → samples
--   local truth = S.truth(res, fns, "cycles")                       -- name → cycles
--   S.table("title", { "function", "samples" }, rows)                -- lab.log lines
--
-- Functions are the workload's function tables (name, base, size).
-- Every function checks its arguments (lab.arguments): a value of the
-- wrong type is an error at the scenario's line naming the function and
-- the argument.

local lab = require "proflab"

local M = {}

local function num(v)
  if type(v) == "userdata" then return lab.tonumber(v) end
  return v
end

--- by_function(counts, base, bucket, functions) → name → samples: each
--- bucket (counts[1] is bucket 0, at base) goes to the function holding
--- the bucket's first address; buckets in no function go to "(other)".
function M.by_function(counts, base, bucket, functions)
  lab.arguments("sampling.by_function", { "counts:table", "base:integer", "bucket:integer", "functions:table" },
    counts, base, bucket, functions)
  local out = {}
  for _, f in ipairs(functions) do out[f.name] = 0 end
  local b = num(base)
  local width = 2 ^ bucket
  for i, c in ipairs(counts) do
    local addr = b + (i - 1) * width
    local name = "(other)"
    for _, f in ipairs(functions) do
      local fb = num(f.base)
      if addr >= fb and addr < fb + f.size then name = f.name break end
    end
    out[name] = (out[name] or 0) + c
  end
  if out["(other)"] == 0 then out["(other)"] = nil end
  return out
end

--- truth(res, functions, what) → name → the truth of m:run's result
--- (what = "instructions" (default), "cycles", or an event name such as
--- "cache_misses" from truth[name].events).
function M.truth(res, functions, what)
  lab.arguments("sampling.truth", { "res:table", "functions:table", "what:string|nil" }, res, functions, what)
  what = what or "instructions"
  local out = {}
  for _, f in ipairs(functions) do
    local t = res.truth[f.name]
    local v = 0
    if t then
      if what == "instructions" or what == "cycles" then v = t[what] else v = (t.events or {})[what] or 0 end
    end
    out[f.name] = v
  end
  return out
end

--- pct(x) → "12.3%"
function M.pct(x)
  lab.arguments("sampling.pct", { "x:number" }, x)
  return ("%5.1f%%"):format(100 * x)
end

--- table(title, headers, rows): logs a table with aligned columns; rows
--- are arrays of values (numbers and strings).
function M.table(title, headers, rows)
  lab.arguments("sampling.table", { "title:string", "headers:table", "rows:table" }, title, headers, rows)
  local widths = {}
  local function cell(v)
    if type(v) == "number" and v ~= math.floor(v) then return ("%.3f"):format(v) end
    return tostring(v)
  end
  local all = { headers }
  for _, r in ipairs(rows) do all[#all + 1] = r end
  for _, r in ipairs(all) do
    for i, v in ipairs(r) do widths[i] = math.max(widths[i] or 0, #cell(v)) end
  end
  lab.log(title)
  for n, r in ipairs(all) do
    local parts = {}
    for i, v in ipairs(r) do
      local s = cell(v)
      if i == 1 then parts[i] = s .. (" "):rep(widths[i] - #s) else parts[i] = (" "):rep(widths[i] - #s) .. s end
    end
    lab.log("  " .. table.concat(parts, "  "))
    if n == 1 then
      local rule = {}
      for i = 1, #r do rule[i] = ("-"):rep(widths[i]) end
      lab.log("  " .. table.concat(rule, "  "))
    end
  end
end

-- the truth of m:run that a source's samples are drawn from
local event_of_source = {
  ProfileTime = "cycles", ProfileTotalCycles = "cycles", ProfileUnhaltedCoreCycles = "cycles",
  ProfileUnhaltedReferenceCycles = "cycles",
  ProfileTotalIssues = "instructions", ProfileInstructionRetired = "instructions",
  ProfileCacheMisses = "cache_misses", ProfileLLCMisses = "cache_misses",
  ProfileLLCReference = "cache_references",
  ProfileBranchInstructions = "branches", ProfileBranchInstructionRetired = "branches",
  ProfileBranchMispredictions = "branch_mispredicts", ProfileBranchMispredictsRetired = "branch_mispredicts",
}

--- event_of(source) → the m:run truth a source samples ("cycles" for
--- time, "instructions", "cache_misses", …); "instructions" for a source
--- it does not know.
function M.event_of(source)
  lab.arguments("sampling.event_of", { "source:integer" }, source)
  for name, what in pairs(event_of_source) do
    if lab[name] == source then return what end
  end
  return "instructions"
end

-- a function's truth as buckets see it: what ran at its addresses
-- (t.code: a function inlined into another ran in its caller's code)
local function truth_of(t, what)
  t = t.code or t
  if what == "instructions" or what == "cycles" then return num(t[what]) end
  return (t.events or {})[what] or 0
end

--- accuracy(counts, base, bucket, res [, what]) → { samples, functions,
--- tv, bound, within, rows }: a bucket profile (counts[1] is the bucket
--- at base, 2^bucket bytes each, as P.buckets returns them) against
--- m:run's truth res for the functions whose base lies in the profile's
--- range, each the truth of its code (truth[name].code: what a function
--- inlined into another ran is its caller's, as buckets see it). A bucket goes to the function holding its first address, else
--- the first function starting inside it. what is the truth the samples
--- are drawn from (default "cycles"; see event_of). tv is the total
--- variation distance between sampled and truth shares, bound what
--- sampling error alone stays under (99.9%: ½ Σ √(t(1−t)/n) + √(ln 1000
--- / 2n)), within is tv <= bound; rows are { name, samples, sampled,
--- truth } by truth share, largest first.
function M.accuracy(counts, base, bucket, res, what)
  lab.arguments("sampling.accuracy", { "counts:table", "base:integer", "bucket:integer", "res:table", "what:string|nil" },
    counts, base, bucket, res, what)
  what = what or "cycles"
  -- offsets from base (addresses may be u64s above 2^53)
  local b, width = lab.u64(base), 2 ^ bucket
  local span = lab.u64(#counts * width)
  local fns = {}
  for name, t in pairs(res.truth) do
    local off = lab.u64(t.base) - b
    if off < span then
      fns[#fns + 1] = { name = name, base = lab.tonumber(off), size = num(t.size), truth = truth_of(t, what), samples = 0 }
    end
  end
  table.sort(fns, function(x, y) return x.base < y.base end)
  local n, j = 0, 1
  for i, c in ipairs(counts) do
    if c > 0 then
      local lo = (i - 1) * width
      while j <= #fns and fns[j].base + fns[j].size <= lo do j = j + 1 end
      local f = fns[j]
      if f and f.base < lo + width then
        f.samples = f.samples + c
        n = n + c
      end
    end
  end
  local total = 0
  for _, f in ipairs(fns) do total = total + f.truth end
  local out = { samples = n, functions = 0, tv = 0, bound = 0, rows = {} }
  if n == 0 or total <= 0 then
    out.within = false
    return out
  end
  local noise = 0
  for _, f in ipairs(fns) do
    if f.samples > 0 or f.truth > 0 then
      local s, t = f.samples / n, f.truth / total
      out.tv = out.tv + math.abs(s - t) / 2
      noise = noise + math.sqrt(t * (1 - t) / n) / 2
      out.rows[#out.rows + 1] = { name = f.name, samples = f.samples, sampled = s, truth = t }
      out.functions = out.functions + 1
    end
  end
  table.sort(out.rows, function(x, y)
    if x.truth ~= y.truth then return x.truth > y.truth end
    return x.name < y.name
  end)
  out.bound = noise + math.sqrt(math.log(1000) / (2 * n))
  out.within = out.tv <= out.bound
  return out
end

--- control_areas(m): gives every processor of m a PEBS control area
--- (kernel-mode NtSetSystemInformation(SystemProcessorProfileControlArea)),
--- in the machine's layout of SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA: the
--- area's pointer, then BOOLEAN Allocate (x86: 8 bytes, Allocate at +4;
--- x64: 0x10 bytes, Allocate at +8).
function M.control_areas(m)
  lab.arguments("sampling.control_areas", { "m:object" }, m)
  local ptr = m:arch() == "x86" and 4 or 8
  for cpu = 0, m:cpu_count() - 1 do
    local k = m:kernel{ cpu = cpu }
    local buf = k:alloc(2 * ptr)
    k:write_u8(buf + ptr, 1)
    local st = k:NtSetSystemInformation(lab.SystemProcessorProfileControlArea, buf, 2 * ptr)
    if st ~= lab.STATUS_SUCCESS and st ~= lab.STATUS_ADDRESS_ALREADY_EXISTS then
      local why = ""
      if st == lab.STATUS_INVALID_INFO_CLASS then
        why = ("; the class arrives in Windows 8 (6.2), this machine runs %s"):format(m:version())
      end
      error(("sampling.control_areas: NtSetSystemInformation(SystemProcessorProfileControlArea) on processor %d returned %s%s"):format(
        cpu, lab.status_name(st), why), 3)
    end
  end
end

return M
