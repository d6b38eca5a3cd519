-- stats: small statistics for scenarios and sweeps.
--
--   local stats = require "stats"
--   stats.mean({1, 2, 3})                       --> 2
--   stats.shares({ f = 30, g = 10 })            --> { f = 0.75, g = 0.25 }
--   stats.total_variation(sampled, truth)       --> distance in [0, 1]
--
-- Tables of values are arrays ({1, 2, 3}); tables of counts or shares are
-- keyed by anything (function names, bucket numbers) and may be arrays too.
-- Counts may be numbers or lab.u64 values below 2^53. A table of another
-- type, or a value that is not a number, is an error naming the function.

local lab = require "proflab"

local M = {}

local function num(v, what)
  if type(v) == "number" then return v end
  if type(v) == "userdata" then return lab.tonumber(v) end
  error(("stats: %s is a %s, expected a number"):format(what, type(v)), 3)
end

local function values(xs, fn)
  if type(xs) ~= "table" then
    error(("stats.%s: expected a table of numbers, got %s"):format(fn, type(xs)), 3)
  end
  local out = {}
  for i = 1, #xs do out[i] = num(xs[i], ("element [%d]"):format(i)) end
  return out
end

--- sum(xs): the sum of an array of numbers (0 for an empty array).
function M.sum(xs)
  local s = 0
  for _, v in ipairs(values(xs, "sum")) do s = s + v end
  return s
end

--- mean(xs): the arithmetic mean; nil for an empty array.
function M.mean(xs)
  local v = values(xs, "mean")
  if #v == 0 then return nil end
  local s = 0
  for _, x in ipairs(v) do s = s + x end
  return s / #v
end

--- variance(xs): the sample variance (divides by n - 1); 0 for fewer than
--- two values.
function M.variance(xs)
  local v = values(xs, "variance")
  local n = #v
  if n < 2 then return 0 end
  local m = 0
  for _, x in ipairs(v) do m = m + x end
  m = m / n
  local ss = 0
  for _, x in ipairs(v) do ss = ss + (x - m) ^ 2 end
  return ss / (n - 1)
end

--- stddev(xs): the sample standard deviation.
function M.stddev(xs)
  lab.arguments("stats.stddev", { "xs:table" }, xs)
  return math.sqrt(M.variance(xs))
end

--- min(xs), max(xs): the extremes; nil for an empty array.
function M.min(xs)
  local v = values(xs, "min")
  local r = v[1]
  for i = 2, #v do if v[i] < r then r = v[i] end end
  return r
end

function M.max(xs)
  local v = values(xs, "max")
  local r = v[1]
  for i = 2, #v do if v[i] > r then r = v[i] end end
  return r
end

--- median(xs): the middle value (mean of the two middle ones for an even
--- count); nil for an empty array.
function M.median(xs)
  local v = values(xs, "median")
  if #v == 0 then return nil end
  table.sort(v)
  local mid = math.floor((#v + 1) / 2)
  if #v % 2 == 1 then return v[mid] end
  return (v[mid] + v[mid + 1]) / 2
end

--- total(counts): the sum of a table of counts, whatever its keys.
function M.total(counts)
  if type(counts) ~= "table" then
    error(("stats.total: expected a table of counts, got %s"):format(type(counts)), 2)
  end
  local t = 0
  for k, v in pairs(counts) do t = t + num(v, "count [" .. tostring(k) .. "]") end
  return t
end

--- shares(counts): each count divided by the total, same keys. A table
--- whose total is 0 gives 0 for every key.
function M.shares(counts)
  lab.arguments("stats.shares", { "counts:table" }, counts)
  local t = M.total(counts)
  local out = {}
  for k, v in pairs(counts) do
    out[k] = t == 0 and 0 or num(v, "count") / t
  end
  return out
end

-- union of the keys of a and b
local function keys(a, b)
  local seen, out = {}, {}
  for k in pairs(a) do if not seen[k] then seen[k] = true; out[#out + 1] = k end end
  for k in pairs(b) do if not seen[k] then seen[k] = true; out[#out + 1] = k end end
  return out
end

--- total_variation(p, q): the total variation distance between two
--- distributions, 1/2 * sum |p_k - q_k| over every key of either, after
--- normalising each to shares (so counts work as well). 0 means equal,
--- 1 disjoint.
function M.total_variation(p, q)
  lab.arguments("stats.total_variation", { "p:table", "q:table" }, p, q)
  local ps, qs = M.shares(p), M.shares(q)
  local d = 0
  for _, k in ipairs(keys(ps, qs)) do
    d = d + math.abs((ps[k] or 0) - (qs[k] or 0))
  end
  return d / 2
end

--- max_abs_error(p, q): the largest |p_k - q_k| over every key of either,
--- after normalising each to shares; also returns the key where it is.
function M.max_abs_error(p, q)
  lab.arguments("stats.max_abs_error", { "p:table", "q:table" }, p, q)
  local ps, qs = M.shares(p), M.shares(q)
  local worst, at = 0, nil
  for _, k in ipairs(keys(ps, qs)) do
    local e = math.abs((ps[k] or 0) - (qs[k] or 0))
    if e > worst or at == nil then worst, at = e, k end
  end
  return worst, at
end

--- chi_square(observed, expected): Pearson's statistic
--- sum (O_k - E_k)^2 / E_k, where observed are counts and expected are
--- counts or shares (scaled to the observed total). Returns the statistic
--- and the degrees of freedom (categories with E_k > 0, minus one). A
--- category observed but never expected makes the statistic math.huge.
function M.chi_square(observed, expected)
  lab.arguments("stats.chi_square", { "observed:table", "expected:table" }, observed, expected)
  local n = M.total(observed)
  local es = M.shares(expected)
  local chi, cats = 0, 0
  for _, k in ipairs(keys(observed, es)) do
    local o = observed[k] and num(observed[k], "observed count") or 0
    local e = (es[k] or 0) * n
    if e > 0 then
      chi = chi + (o - e) ^ 2 / e
      cats = cats + 1
    elseif o > 0 then
      chi = math.huge
    end
  end
  return chi, math.max(cats - 1, 0)
end

return M
