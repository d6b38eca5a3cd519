-- tools.kernrate_args: kernrate's command line (the Kernrate Usage
-- Guide's options the model can honour), for tools.kernrate.
local lab = require "proflab"
local C = require "tools.common"

local M = {}

M.DEFAULT_RATE = 25000 -- events per hit of the Time source (100 ns units: 2.5 ms)
M.DEFAULT_BUCKET = 16  -- bytes, zoomed modules
M.MIN_BUCKET = 4
M.MAX_SECONDS = 3600   -- m:run's limit, an hour of simulated time

-- The KPROFILE_SOURCE short names kernrate knows: the lab's constant
-- names without "Profile", in source order.
local SHORT = { "Time", "AlignmentFixup", "TotalIssues", "PipelineDry", "LoadInstructions", "PipelineFrozen",
  "BranchInstructions", "TotalNonissues", "DcacheMisses", "IcacheMisses", "CacheMisses", "BranchMispredictions",
  "StoreInstructions", "FpInstructions", "IntegerInstructions", "2Issue", "3Issue", "4Issue", "SpecialInstructions",
  "TotalCycles", "IcacheIssues", "DcacheAccesses", "MemoryBarrierCycles", "LoadLinkedIssues", "UnhaltedCoreCycles",
  "InstructionRetired", "UnhaltedReferenceCycles", "LLCReference", "LLCMisses", "BranchInstructionRetired",
  "BranchMispredictsRetired" }

--- sources() → { { name = "Time", id = 0 }, ... }: the sources kernrate
--- can name, by source id.
function M.sources()
  local out = {}
  for _, name in ipairs(SHORT) do out[#out + 1] = { name = name, id = lab["Profile" .. name] } end
  table.sort(out, function(a, b) return a.id < b.id end)
  return out
end

-- OPTIONS are the options the model honours, then BEYOND's, sorted: the
-- names a mistyped option is compared with.
local OPTIONS = { "s", "i", "b", "z", "n", "p", "a" }

local function source_named(text)
  for _, s in ipairs(M.sources()) do
    if s.name:lower() == text:lower() then return s end
  end
  return nil
end

-- Options of kernrate that the model cannot honour; true: it takes a
-- value (the next argument), false: an optional number may follow.
local BEYOND = { j = true, c = true, k = true, m = true, o = true, g = false, v = false, x = false,
  w = false, t = false, e = false, f = false, l = false, lx = false, r = false, rd = false, u = false, d = false }
do
  local beyond = {}
  for name in pairs(BEYOND) do beyond[#beyond + 1] = name end
  table.sort(beyond)
  for _, name in ipairs(beyond) do OPTIONS[#OPTIONS + 1] = name end
end

-- value returns args[i] as a whole number in [lo, hi], or nil and the
-- message naming the option.
local function value(args, i, opt, what, lo, hi)
  local v = C.integer(args[i])
  if v == nil then
    return nil, ("-%s needs %s, got %s"):format(opt, what, args[i] and ("%q"):format(args[i]) or "nothing")
  end
  if v < lo or v > hi then
    return nil, ("-%s %d: %s must be %d…%d"):format(opt, v, what, lo, hi)
  end
  return v
end

local function set_source(req, name, id, rate)
  for _, s in ipairs(req.sources) do
    if s.id == id then
      s.rate, s.given = rate, true
      return
    end
  end
  req.sources[#req.sources + 1] = { name = name, id = id, rate = rate, given = true }
end

-- interval handles -i [SOURCE] N at args[i]; it returns the next index.
local function interval(req, args, i)
  local src, at = { name = "Time", id = lab.ProfileTime }, i + 1
  if args[at] ~= nil and C.integer(args[at]) == nil and not C.option(args[at]) then
    src = source_named(args[at])
    if not src then
      local names = {}
      for _, s in ipairs(M.sources()) do names[#names + 1] = s.name end
      return nil, ("-i %s: kernrate knows no source of that name%s; the names are %s"):format(args[at],
        C.did_you_mean(args[at], names), table.concat(names, ", "))
    end
    at = at + 1
  end
  local n, err = value(args, at, "i", "the events per hit (0 turns the source off)", 0, 0xFFFFFFFF)
  if not n then return nil, err end
  set_source(req, src.name, src.id, n)
  return at + 1
end

-- beyond skips an option the model cannot honour (and its value),
-- noting it in req.ignored; it returns the next index.
local function beyond(req, args, i, opt)
  req.ignored[#req.ignored + 1] = args[i]
  local takes = BEYOND[opt]
  if takes and args[i + 1] ~= nil and not C.option(args[i + 1]) then return i + 2 end
  if takes == false and C.integer(args[i + 1]) ~= nil then return i + 2 end
  return i + 1
end

-- one handles the option at args[i]; it returns the next index, or nil
-- and the message.
local function one(req, args, i)
  local opt = C.option(args[i])
  local err
  if opt == nil then
    return nil, ("%s is not a kernrate option (options start with - or /)"):format(args[i])
  elseif opt == "s" then
    req.seconds, err = value(args, i + 1, "s", "the seconds to collect", 1, M.MAX_SECONDS)
  elseif opt == "i" then
    return interval(req, args, i)
  elseif opt == "b" then
    req.bucket, err = value(args, i + 1, "b", "the zoom bucket size in bytes", M.MIN_BUCKET, 0x80000000)
    local pow = M.MIN_BUCKET
    while req.bucket and pow < req.bucket do pow = pow * 2 end
    if req.bucket and pow ~= req.bucket then
      return nil, ("-b %d: the bucket size must be a power of 2 (4, 8, 16, …)"):format(req.bucket)
    end
  elseif opt == "z" or opt == "n" then
    if args[i + 1] == nil or C.option(args[i + 1]) then
      return nil, ("-%s needs a %s name"):format(opt, opt == "z" and "module" or "process")
    end
    local list = opt == "z" and req.zoom or req.names
    list[#list + 1] = args[i + 1]
  elseif opt == "p" then
    local pid
    pid, err = value(args, i + 1, "p", "a process id", 0, 0xFFFFFFFF)
    req.pids[#req.pids + 1] = pid
  elseif opt == "a" then
    req.all = true
    return i + 1
  elseif BEYOND[opt] ~= nil then
    return beyond(req, args, i, opt)
  else
    return nil, ("%s is not a kernrate option%s; the model has -s, -i, -b, -z, -a, -n and -p"):format(args[i],
      C.did_you_mean(opt, OPTIONS, "-"))
  end
  if err then return nil, err end
  return i + 2
end

--- parse(args) → the request { seconds, sources = { { name, id, rate,
--- given } }, bucket, zoom = { NAME }, all, names = { NAME }, pids = {
--- PID }, ignored = { option } }, or nil and the message.
function M.parse(args)
  local req = { sources = { { name = "Time", id = lab.ProfileTime, rate = M.DEFAULT_RATE, given = false } },
    bucket = M.DEFAULT_BUCKET, zoom = {}, all = false, names = {}, pids = {}, ignored = {} }
  local i = 1
  while i <= #args do
    local nexti, err = one(req, args, i)
    if not nexti then return nil, err end
    i = nexti
  end
  if not req.seconds then
    return nil, "give -s N, the seconds of simulated time to collect: kernrate on the model cannot wait for Ctrl-C"
  end
  local on = {}
  for _, s in ipairs(req.sources) do
    if s.rate > 0 then on[#on + 1] = s end
  end
  if #on == 0 then return nil, "every source is turned off (-i … 0): nothing to profile" end
  req.sources = on
  return req
end

return M
