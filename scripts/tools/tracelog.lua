-- tools.tracelog: tracelog.exe's `-profilesources Help` re-created on the
-- model: the profile sources the machine's HALs offer, with their current,
-- minimum and maximum intervals, as Windows 10's tracelog prints them
-- (docs/reference/hal.md#what-windows-10-itself-reports; the listing is tools.sources'). The rest of
-- tracelog (starting and stopping trace sessions) is out of the model's
-- reach.
--
--   local tracelog = require "tools.tracelog"
--   local res = tracelog.run(m, { "-profilesources", "Help" })
--   -- res.rows[1] = { source = 0, name = "Timer", interval = 10000, min = 1221, max = 1000000 }
local lab = require "proflab"
local C = require "tools.common"
local S = require "tools.sources"

local M = {}

-- ACTIONS are tracelog's actions (the Tracelog Command Syntax page): the
-- model has none of them but the source listing.
local ACTIONS = { "addautologger", "capturestate", "disable", "enable", "enumguid", "flush", "h", "help", "l", "q",
  "remove", "start", "stop", "systemrundown", "update", "x" }

--- parse(args) → the request { profilesources = true }, or nil and the
--- message for arguments tracelog on the model does not take.
function M.parse(args)
  if #args == 0 then
    return nil, "give -profilesources Help (the one tracelog command the model has)"
  end
  local opt = C.option(args[1])
  if opt ~= "profilesources" then
    for _, a in ipairs(ACTIONS) do
      if opt == a then
        return nil, ("%s is out of the model's reach: tracelog on the model lists profile sources only (-profilesources Help)"):format(args[1])
      end
    end
    local names = { "profilesources" }
    for _, a in ipairs(ACTIONS) do names[#names + 1] = a end
    return nil, ("%s is not a tracelog action%s: tracelog on the model lists profile sources only (-profilesources Help)"):format(
      args[1], C.did_you_mean(opt or args[1], names, "-"))
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
--- administrator's "tracelog.exe"), quiet (do not log the lines).
--- res: { tool, status (0, 1 failed, 2 refused), error, lines, rows }.
function M.run(m, args, opts)
  lab.arguments("tracelog.run", { "m:object" }, m)
  opts = lab.options("tracelog.run", opts, { process = "object", quiet = "boolean" })
  local res, say = C.result("tracelog", opts)
  args = C.strings(args, "tracelog")
  local req, err = M.parse(args)
  if not req then return C.fail(res, C.USAGE, err) end
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
