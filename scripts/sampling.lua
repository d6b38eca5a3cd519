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
function M.pct(x) return ("%5.1f%%"):format(100 * x) end

--- table(title, headers, rows): logs a table with aligned columns; rows
--- are arrays of values (numbers and strings).
function M.table(title, headers, rows)
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

--- control_areas(m): gives every processor of m a PEBS control area
--- (kernel-mode NtSetSystemInformation(SystemProcessorProfileControlArea)).
function M.control_areas(m)
  for cpu = 0, m:cpu_count() - 1 do
    local k = m:kernel{ cpu = cpu }
    local buf = k:alloc(0x10)
    k:write_u8(buf + 8, 1)
    local st = k:NtSetSystemInformation(lab.SystemProcessorProfileControlArea, buf, 0x10)
    if st ~= lab.STATUS_SUCCESS and st ~= lab.STATUS_ADDRESS_ALREADY_EXISTS then
      error(("control area on processor %d: %s"):format(cpu, lab.status_name(st)), 2)
    end
  end
end

return M
