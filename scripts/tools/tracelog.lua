-- tools.tracelog: tracelog.exe's `-profilesources Help` re-created on the
-- model: the profile sources the machine's HALs offer, with their current,
-- minimum and maximum intervals, as Windows 10's tracelog prints them
-- (docs/reference/hal.md#what-windows-10-itself-reports; the listing is tools.sources'); and a
-- recording of the NT Kernel Logger with profile events as one command
-- (tools.record):
--
--   tracelog -start ["NT Kernel Logger"] -f FILE.etl -eflag PROC_THREAD+LOADER+PROFILE
--            [-stackwalk Profile+PmcInterrupt] [-duration N]
--
-- The rest of tracelog (other sessions, providers, -stop of a running
-- session) is out of the model's reach.
--
--   local tracelog = require "tools.tracelog"
--   local res = tracelog.run(m, { "-profilesources", "Help" })
--   -- res.rows[1] = { source = 0, name = "Timer", interval = 10000, min = 1221, max = 1000000 }
local lab = require "proflab"
local C = require "tools.common"
local S = require "tools.sources"
local R = require "tools.record"

local M = {}

-- ACTIONS are tracelog's actions (the Tracelog Command Syntax page): the
-- model has none of them but the source listing.
local ACTIONS = { "addautologger", "capturestate", "disable", "enable", "enumguid", "flush", "h", "help", "l", "q",
  "remove", "stop", "systemrundown", "update", "x" }

-- WHAT is what tracelog on the model does, for the messages.
local WHAT = "tracelog on the model lists profile sources (-profilesources Help) and records the NT Kernel Logger (-start -f FILE.etl -eflag PROC_THREAD+LOADER+PROFILE)"

-- FLAGS are the kernel flags (-eflag) a recording on the model takes:
-- the rundown the .etl always has (PROC_THREAD, LOADER) and PROFILE.
local FLAGS = { proc_thread = true, loader = true, profile = true }

-- parse_start reads -start [NAME] -f FILE.etl -eflag FLAGS [-stackwalk
-- EVENTS] [-duration N].
local function parse_start(args)
  local req = { start = true, seconds = R.DEFAULT_SECONDS }
  local i = 2
  if args[i] ~= nil and not C.option(args[i]) then
    if args[i]:lower() ~= "nt kernel logger" then
      return nil, ("-start %s: the model's logger is the NT Kernel Logger (-start \"NT Kernel Logger\", or no name)"):format(args[i])
    end
    i = i + 1
  end
  while args[i] ~= nil do
    local o = C.option(args[i])
    if o == "f" then
      local file, msg = R.etl_name(args[i + 1], "-f")
      if not file then return nil, msg end
      req.file = file
    elseif o == "eflag" then
      if args[i + 1] == nil then return nil, "-eflag needs the kernel flags, such as PROC_THREAD+LOADER+PROFILE" end
      req.flags = {}
      for f in args[i + 1]:gmatch("[^+]+") do
        if not FLAGS[f:lower()] then
          return nil, ("-eflag %s: %s is not a flag the model logs; it logs PROC_THREAD, LOADER and PROFILE"):format(args[i + 1], f)
        end
        req.flags[#req.flags + 1] = f:upper()
        req.profile = req.profile or f:lower() == "profile"
      end
    elseif o == "stackwalk" then
      if args[i + 1] == nil then return nil, "-stackwalk needs the events, such as Profile" end
      req.stackwalk = {}
      for e in args[i + 1]:gmatch("[^+]+") do req.stackwalk[#req.stackwalk + 1] = e end
    elseif o == "duration" then
      local n, msg = R.duration(args, i)
      if not n then return nil, msg end
      req.seconds = n
    else
      return nil, ("%s: a recording takes -f FILE.etl, -eflag FLAGS, -stackwalk EVENTS and -duration N"):format(args[i])
    end
    i = i + 2
  end
  if not req.file then return nil, "-start needs -f FILE.etl: the model records to a file" end
  if not req.profile then
    return nil, "-start: the model records profile sessions: give -eflag with PROFILE (PROC_THREAD+LOADER+PROFILE)"
  end
  return req
end

--- parse(args) → the request { profilesources = true }, or nil and the
--- message for arguments tracelog on the model does not take.
function M.parse(args)
  if #args == 0 then
    return nil, "give -profilesources Help (the one tracelog command the model has)"
  end
  local opt = C.option(args[1])
  if opt == "start" then return parse_start(args) end
  if opt ~= "profilesources" then
    for _, a in ipairs(ACTIONS) do
      if opt == a then
        return nil, ("%s is out of the model's reach: %s"):format(args[1], WHAT)
      end
    end
    local names = { "profilesources", "start" }
    for _, a in ipairs(ACTIONS) do names[#names + 1] = a end
    return nil, ("%s is not a tracelog action%s: %s"):format(args[1], C.did_you_mean(opt or args[1], names, "-"), WHAT)
  end
  if args[2] == nil or args[2]:lower() ~= "help" then
    return nil, ("-profilesources %s%s: the model lists the sources (-profilesources Help); configuring sources is wpr's or an ETW session's work"):format(
      args[2] or "needs Help", args[2] and C.did_you_mean(args[2], { "Help" }) or "")
  end
  if args[3] ~= nil then
    return nil, ("%s: -profilesources Help takes nothing more"):format(args[3])
  end
  return { profilesources = true }
end

--- run(m, args [, opts]) → res: runs `tracelog ARGS` on machine m.
--- opts: process (the caller tracelog runs as; default a new
--- administrator's "tracelog.exe"), quiet (do not log the lines),
--- workload (what -start records, as m:run takes).
--- res: { tool, status (0, 1 failed, 2 refused), error, lines, rows;
--- for -start: samples, stacks, file, run }.
function M.run(m, args, opts)
  lab.arguments("tracelog.run", { "m:object" }, m)
  opts = lab.options("tracelog.run", opts, { process = "object", quiet = "boolean", workload = "string|table" })
  local res, say = C.result("tracelog", opts)
  args = C.strings(args, "tracelog")
  local req, err = M.parse(args)
  if not req then return C.fail(res, C.USAGE, err) end
  if req.start then
    return R.record(m, res, say, { workload = opts.workload, seconds = req.seconds, file = req.file, stackwalk = req.stackwalk,
      flags = table.concat(req.flags, "+") .. (req.stackwalk and (", stacks on " .. table.concat(req.stackwalk, "+")) or ""),
      how = "proflab tracelog --workload FILE" })
  end
  if not C.at_least(m, 6, 2) then
    return C.fail(res, C.USAGE, ("the profile source list comes from TraceQueryInformation, which Windows has from 6.2 (Windows 8); this machine runs %s"):format(m:version()))
  end
  local p = opts.process or C.admin(m, "tracelog.exe")
  local rows, failed = S.list(p)
  if not rows then return C.fail(res, C.FAILED, failed) end
  res.rows = rows
  for _, l in ipairs(S.lines(rows)) do say(l) end
  return res
end

return M
