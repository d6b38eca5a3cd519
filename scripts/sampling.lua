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

--- truths: the names of the truth m:run gives per function, as truth and
--- accuracy take them (what).
M.truths = { "instructions", "cycles", "branches", "branch_mispredicts", "cache_misses", "cache_references" }

-- check_truth raises, naming fn and the valid names, for a what that is
-- no truth m:run gives (a misspelt name would read as a truth of 0).
local function check_truth(fn, what)
  if type(what) ~= "string" then
    error(("sampling.%s: what must be a string naming a truth, got %s"):format(fn, type(what)), 4)
  end
  for _, name in ipairs(M.truths) do
    if name == what then return end
  end
  local quoted = {}
  for i, name in ipairs(M.truths) do quoted[i] = ("%q"):format(name) end
  error(("sampling.%s: %q is not a truth m:run gives: give one of %s"):format(fn, what, table.concat(quoted, ", ")), 4)
end

--- truth(res, functions, what) → name → the truth of m:run's result
--- (what = "instructions" (default), "cycles", or an event name such as
--- "cache_misses" from truth[name].events; see truths).
function M.truth(res, functions, what)
  lab.arguments("sampling.truth", { "res:table", "functions:table", "what:string|nil" }, res, functions, what)
  what = what or "instructions"
  check_truth("truth", what)
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
--- verdict, within, beyond, tv, expected, p, method, rows }: a bucket
--- profile (counts[1] is the bucket at base, 2^bucket bytes each, as
--- P.buckets returns them) against m:run's truth res for the functions
--- whose base lies in the profile's range, each the truth of its code
--- (truth[name].code: what a function inlined into another ran is its
--- caller's, as buckets see it). A bucket goes to the function holding
--- its first address, else the first function starting inside it;
--- buckets that hold no function are the row "(no function)", whose
--- truth is none. what is the truth the samples are drawn from (default
--- "cycles"; see event_of and truths; another name is an error). verdict
--- is "within sampling error", "beyond sampling error" (p < 0.001), "no
--- samples" or "no truth"; within and beyond say the first two. tv is
--- the total-variation distance between the sampled and the truth
--- shares, expected its mean under sampling error alone, p its p-value
--- (lab.sampling_test: exact, a bound or Monte Carlo, as method says);
--- none of the three without samples. rows are { name, samples,
--- sampled, truth } by truth share, largest first.
function M.accuracy(counts, base, bucket, res, what)
  lab.arguments("sampling.accuracy", { "counts:table", "base:integer", "bucket:integer", "res:table", "what:string|nil" },
    counts, base, bucket, res, what)
  what = what or "cycles"
  check_truth("accuracy", what)
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
  local n, j, nowhere = 0, 1, 0
  for i, c in ipairs(counts) do
    if c > 0 then
      local lo = (i - 1) * width
      while j <= #fns and fns[j].base + fns[j].size <= lo do j = j + 1 end
      local f = fns[j]
      if f and f.base < lo + width then
        f.samples = f.samples + c
      else
        nowhere = nowhere + c -- samples where no function is: the truth has none
      end
      n = n + c
    end
  end
  if nowhere > 0 then fns[#fns + 1] = { name = "(no function)", truth = 0, samples = nowhere } end
  local total = 0
  for _, f in ipairs(fns) do total = total + f.truth end
  local out = { samples = n, functions = 0, within = false, beyond = false, rows = {} }
  for _, f in ipairs(fns) do
    if f.samples > 0 or f.truth > 0 then
      out.rows[#out.rows + 1] = { name = f.name, samples = f.samples, sampled = n > 0 and f.samples / n or 0, truth = total > 0 and f.truth / total or 0 }
      out.functions = out.functions + 1
    end
  end
  table.sort(out.rows, function(x, y)
    if x.truth ~= y.truth then return x.truth > y.truth end
    return x.name < y.name
  end)
  if n == 0 then
    out.verdict = "no samples"
    return out
  end
  if total <= 0 then
    out.verdict = "no truth"
    return out
  end
  local cs, ts = {}, {}
  for i, r in ipairs(out.rows) do cs[i], ts[i] = r.samples, r.truth end
  local t = lab.sampling_test(cs, ts)
  out.tv, out.expected, out.p, out.method, out.beyond = t.tv, t.expected, t.p, t.method, t.beyond
  out.draws, out.exceedances, out.p_text = t.draws, t.exceedances, t.p_text
  out.within = not t.beyond
  out.verdict = t.beyond and "beyond sampling error" or "within sampling error"
  return out
end

--- p_text(a) → "p = 0.31", "p <= 1.2e-12" (a bound), "p ≈ 0.28 [0.14, 0.45]"
--- or "p < 0.0004" (Monte Carlo, with its resolution), "-" without a p:
--- an accuracy's p-value for a table. A Monte Carlo p is known only to
--- its draws' resolution: it is printed as lab.sampling_test words it
--- (a.p_text), never its floor 1/(draws+1) as a value.
function M.p_text(a)
  if not a.p then return "-" end
  if a.method == "monte carlo" then
    if a.p_text then return a.p_text end
    return ("p ≈ %.2g (Monte Carlo, resolution not known)"):format(a.p)
  end
  local rel = a.method == "bound" and "<=" or "="
  if a.p < 1e-300 then return "p < 1e-300" end -- underflowed: too small to write, not zero
  if a.p >= 0.01 then return ("p %s %.2f"):format(rel, a.p) end
  if a.p >= 0.0001 then return ("p %s %.4f"):format(rel, a.p) end
  return ("p %s %.1e"):format(rel, a.p)
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
