-- tools.wpr: the profile-interval commands of wpr.exe (Windows Performance
-- Recorder, Windows 8.1 and later) re-created on the model, through the
-- calls wpr makes: TraceQueryInformation and TraceSetInformation with
-- TraceSampledProfileIntervalInfo (class 5) and TraceProfileSourceListInfo
-- (class 7); and a recording of the CPU profile as one command (tools.record):
--
--   wpr -profint [SOURCE]          Current Profile Interval = 10000 [1.0000ms]
--   wpr -setprofint N [SOURCE]     New Profile Interval = N [N/10000 ms]
--   wpr -resetprofint [SOURCE]     back to the HAL's default, then as -setprofint
--   wpr -pmcsources                the source listing (as tracelog -profilesources Help)
--   wpr -start CPU -stop FILE.etl [-duration N]
--                                  the CPU profile (PROC_THREAD + LOADER + PROFILE,
--                                  stacks on Profile) while the workload runs N
--                                  seconds (10), written to FILE.etl
--
-- SOURCE is a description from the listing (Timer, TotalIssues, … any
-- case) or a source id; the default is Timer.
--
--   local wpr = require "tools.wpr"
--   local res = wpr.run(m, { "-profint" })   -- res.interval == 10000 on Windows 10
local lab = require "proflab"
local C = require "tools.common"
local S = require "tools.sources"
local R = require "tools.record"

local M = {}

-- The range wpr's documentation gives for -setprofint (100 ns units).
M.MIN_INTERVAL, M.MAX_INTERVAL = 1221, 10000000

-- Commands wpr has that the model does not.
local elsewhere = {
  cancel = true, status = true, profiles = true, providers = true,
  marker = true, flush = true, merge = true, boottrace = true, heaptracingconfig = true,
  disablepagingexecutive = true, log = true, help = true, ["?"] = true,
}

-- did_you_mean is C.did_you_mean over wpr's commands, the model's first.
local function did_you_mean(typed)
  local names, others = { "profint", "setprofint", "resetprofint", "pmcsources", "start", "stop" }, {}
  for name in pairs(elsewhere) do others[#others + 1] = name end
  table.sort(others)
  for _, name in ipairs(others) do names[#names + 1] = name end
  return C.did_you_mean(typed, names, "-")
end

-- PROFILES are the recording profiles the model has (wpr -profiles lists
-- Windows' own): CPU, its kernel flags and the events it walks stacks of.
M.PROFILES = { cpu = { name = "CPU", flags = "PROC_THREAD+LOADER+PROFILE, stacks on Profile", stackwalk = { "Profile" } } }

-- parse_record reads `-start CPU -stop FILE.etl [-duration N]`, in any
-- order: on the model a recording is one command.
local function parse_record(args)
  local req = { command = "start", seconds = R.DEFAULT_SECONDS }
  local i = 1
  while args[i] ~= nil do
    local o = C.option(args[i])
    if o == "start" then
      local prof = args[i + 1] and M.PROFILES[args[i + 1]:lower()]
      if not prof then
        return nil, ("-start %s: the model records the CPU profile only (-start CPU)"):format(args[i + 1] or "needs a profile")
      end
      req.profile, i = prof, i + 2
    elseif o == "stop" then
      local file, msg = R.etl_name(args[i + 1], "-stop")
      if not file then return nil, msg end
      req.file, i = file, i + 2
    elseif o == "duration" then
      local n, msg = R.duration(args, i)
      if not n then return nil, msg end
      req.seconds, i = n, i + 2
    else
      return nil, ("%s: a recording takes -start CPU, -stop FILE.etl and -duration N"):format(args[i])
    end
  end
  if not req.profile then return nil, "-stop FILE.etl records nothing without -start CPU: on the model a recording is one command, -start CPU -stop FILE.etl" end
  if not req.file then return nil, "-start CPU needs -stop FILE.etl: on the model a recording is one command, -start CPU -stop FILE.etl [-duration N]" end
  return req
end

--- parse(args) → the request { command = "profint" | "setprofint" |
--- "resetprofint" | "pmcsources" | "start", source = text or nil,
--- interval = n; for start: profile, file, seconds }, or nil and the
--- message.
function M.parse(args)
  local cmd = C.option(args[1])
  if cmd == "start" or cmd == "stop" then return parse_record(args) end
  if not cmd then
    return nil, args[1] and ("%s is not a wpr command%s; the model has -profint, -setprofint, -resetprofint, -pmcsources and -start CPU -stop FILE.etl"):format(args[1],
      did_you_mean((args[1]:gsub("^[-/]+", ""))))
      or "give a command: -profint [SOURCE], -setprofint N [SOURCE], -resetprofint [SOURCE] or -pmcsources"
  end
  local req, rest = { command = cmd }, 2
  if cmd == "setprofint" then
    local n = C.integer(args[2])
    if not n then
      return nil, ("-setprofint needs the interval in 100 ns units (%d…%d), got %s"):format(M.MIN_INTERVAL, M.MAX_INTERVAL, args[2] and ("%q"):format(args[2]) or "nothing")
    end
    if n < M.MIN_INTERVAL or n > M.MAX_INTERVAL then
      return nil, ("-setprofint %d: the interval must be %d…%d (100 ns units)"):format(n, M.MIN_INTERVAL, M.MAX_INTERVAL)
    end
    req.interval, rest = n, 3
  elseif cmd ~= "profint" and cmd ~= "resetprofint" and cmd ~= "pmcsources" then
    if elsewhere[cmd] then
      return nil, ("-%s is out of the model's reach: wpr on the model has -profint, -setprofint, -resetprofint, -pmcsources and -start CPU -stop FILE.etl"):format(cmd)
    end
    return nil, ("%s is not a wpr command%s; the model has -profint, -setprofint, -resetprofint, -pmcsources and -start CPU -stop FILE.etl"):format(args[1],
      did_you_mean(cmd))
  end
  if cmd ~= "pmcsources" and args[rest] ~= nil then
    req.source, rest = args[rest], rest + 1
  end
  if args[rest] ~= nil then
    return nil, ("%s: -%s takes nothing more"):format(args[rest], cmd)
  end
  return req
end

--- format(interval, timer) → "10000 [1.0000ms]" for the timer (100 ns
--- units and milliseconds), the bare count for a counter source.
function M.format(interval, timer)
  if timer then return ("%d [%.4fms]"):format(interval, interval / 10000) end
  return tostring(interval)
end

-- set sets the row's source to interval with TraceSetInformation class 5.
local function set(p, row, interval)
  local iv = p:alloc(8)
  p:write_u32(iv, row.source)
  p:write_u32(iv + 4, interval)
  local err = p:TraceSetInformation(0, lab.TraceSampledProfileIntervalInfo, iv, 8)
  p:free(iv)
  return err
end

-- default_of is the interval the machine's HAL declares as the source's
-- default (what -resetprofint restores).
local function default_of(m, source)
  for _, s in ipairs(m:hal_sources()) do
    if s.source == source then return s.default end
  end
  return nil
end

-- interval runs -profint, -setprofint or -resetprofint for the row.
local function interval(m, p, res, say, req, row)
  local timer = row.source == lab.ProfileTime
  if req.command ~= "profint" then
    local want = req.interval or default_of(m, row.source)
    local err = set(p, row, want)
    if err ~= lab.ERROR_SUCCESS then
      return C.fail(res, C.FAILED, ("TraceSetInformation(TraceSampledProfileIntervalInfo, %s, %d) failed: %s"):format(row.name, want, lab.win32_name(err)))
    end
    res.requested = want
  end
  local v, err = S.interval(p, row.source)
  if err ~= lab.ERROR_SUCCESS then
    return C.fail(res, C.FAILED, ("TraceQueryInformation(TraceSampledProfileIntervalInfo, %s) failed: %s"):format(row.name, lab.win32_name(err)))
  end
  res.interval = v
  say((req.command == "profint" and "Current" or "New") .. " Profile Interval = " .. M.format(v, timer))
  return res
end

--- run(m, args [, opts]) → res: runs `wpr ARGS` on machine m. opts:
--- process (the caller wpr runs as; default a new administrator's
--- "wpr.exe": SeSystemProfilePrivilege, high integrity), quiet (do not
--- log the lines), workload (what -start CPU records, as m:run takes). res: { tool, status (0, 1 failed, 2 refused), error,
--- lines, source (the row used: source, name, interval, min, max),
--- interval (the interval queried, after a set), requested (what a set
--- asked for), rows (-pmcsources); for -start: samples, stacks, file,
--- run (m:run's result) }.
function M.run(m, args, opts)
  lab.arguments("wpr.run", { "m:object" }, m)
  opts = lab.options("wpr.run", opts, { process = "object", quiet = "boolean", workload = "string|table" })
  local res, say = C.result("wpr", opts)
  args = C.strings(args, "wpr")
  local req, msg = M.parse(args)
  if not req then return C.fail(res, C.USAGE, msg) end
  if not C.at_least(m, 6, 3) then
    return C.fail(res, C.USAGE, ("wpr runs on Windows 8.1 (6.3) and later; this machine runs %s"):format(m:version()))
  end
  if req.command == "start" then
    return R.record(m, res, say, { workload = opts.workload, seconds = req.seconds, file = req.file,
      stackwalk = req.profile.stackwalk, flags = req.profile.flags, how = "proflab wpr --workload FILE" })
  end
  local p = opts.process or C.admin(m, "wpr.exe")
  local rows, failed = S.list(p)
  if not rows then return C.fail(res, C.FAILED, failed) end
  if req.command == "pmcsources" then
    res.rows = rows
    for _, l in ipairs(S.lines(rows)) do say(l) end
    return res
  end
  local row = S.find(rows, req.source or lab.ProfileTime)
  if not row then
    local names = {}
    for _, r in ipairs(rows) do names[#names + 1] = r.name end
    return C.fail(res, C.USAGE, ("source %q is not one this machine's HALs offer%s; they offer %s"):format(req.source,
      C.did_you_mean(tostring(req.source), names), S.names(rows)))
  end
  res.source = row
  return interval(m, p, res, say, req, row)
end

return M
