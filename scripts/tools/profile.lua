-- tools.profile: `proflab profile SOURCE`, "how would Windows see my
-- program?" in one run (docs/workload-import.md, "proflab profile"). It
-- runs an imported profile (any format the importer registry reads) as
-- the workload, with the source's own processes and threads, on a
-- machine of the chosen Windows, and profiles the program's images — the
-- images holding the source's samples, the most first (program.images),
-- not the first in address order — through the kernel's profile objects
-- (NtCreateProfile over each image, system-wide, in 4-byte buckets) and
-- the NT Kernel Logger (sampled-profile events for the timer, PMC
-- interrupt events for a counter from 6.2). Every number it prints is a
-- service's answer; the comparison with the source is the run folder's
-- (comparison.txt, written from accuracy.csv by core/compare).
--
--   local prof = require "tools.profile"
--   local res = prof.run{ workload = "prog.pb.gz", version = "6.1", source = "Timer" }
--   -- res.status, res.error, res.images[i].name/share/hits, res.source, res.interval
local lab = require "proflab"
local C = require "tools.common"
local A = require "tools.kernrate_args"
local P = require "profile"
local S = require "sampling"
local Prog = require "program"

local M = {}

M.DEFAULT_DURATION_US = 10000000 -- 10 s of simulated time
M.MAX_DURATION_US = 3600000000   -- m:run's limit, an hour
M.MIN_LOG2 = 2                   -- 4-byte buckets: a bucket is charged to the function at its start
M.MAX_BUFFER = 16 * 1024 * 1024  -- bytes of counters per profile, as kernrate's
M.PEBS_HALS = { "apic", "pebs", "pmu" } -- pebs before pmu: it owns the counters it supports

local KERNEL_LOGGER = 0xFFFF        -- the NT Kernel Logger's TRACEHANDLE
local PERF_PMC_PROFILE = 0x400      -- PERFINFO_GROUPMASK Masks[1] bit of PMC interrupt events

-- source_names are the names --source takes: wpr's "Timer", then
-- kernrate's short names of the KPROFILE_SOURCE constants.
local function source_names()
  local out = { "Timer" }
  for _, s in ipairs(A.sources()) do
    if s.name ~= "Time" then out[#out + 1] = s.name end
  end
  return out
end

--- source(text) → { name = "ProfileTime", id } for --source TEXT: Timer
--- (wpr's name), Time, a KPROFILE_SOURCE's short name (TotalIssues) or
--- its constant's name (ProfileTotalIssues), in any case; nil and the
--- message for another.
function M.source(text)
  lab.arguments("profile.source", { "text:string" }, text)
  local t = text:lower():gsub("^profile", "")
  if t == "timer" then t = "time" end
  for _, s in ipairs(A.sources()) do
    if s.name:lower() == t then return { name = "Profile" .. s.name, id = s.id } end
  end
  local names = source_names()
  return nil, ("--source %s: not a profile source%s; the sources are %s"):format(text, C.did_you_mean(text, names), table.concat(names, ", "))
end

-- machine makes the machine of --version and --arch (nil: the
-- configuration's), with PEBS before the counters' HAL for --pebs; nil
-- and the message for a version or an architecture the lab does not
-- model.
local function machine(o)
  local spec = { version = o.version, arch = o.arch }
  if o.pebs then spec.hal = M.PEBS_HALS end
  local ok, m = pcall(lab.machine, spec)
  if ok then return m end
  local msg = tostring(m)
  for _, f in ipairs { "version", "arch" } do
    local why = msg:match('field "' .. f .. '": (.*)$')
    if why then return nil, ("--%s %s: %s"):format(f, tostring(o[f]), why) end
  end
  error(m, 0) -- a HAL that cannot be opened: the run's error, not the options'
end

-- check_request checks the options against the machine before any call
-- changes it; the source, or nil and the message.
local function check_request(m, o)
  local src, msg = M.source(o.source or (o.pebs and "TotalIssues" or "Timer"))
  if not src then return nil, msg end
  if o.pebs then
    if not C.at_least(m, 6, 2) then
      return nil, ("--pebs: PEBS needs the processors' control areas (SystemProcessorProfileControlArea), which arrive in Windows 8 (6.2); this machine runs %s"):format(m:version())
    end
    if src.id == lab.ProfileTime then
      return nil, "--pebs samples a counter precisely, not the timer: give --source TotalIssues (or another counter the pebs HAL has)"
    end
  end
  if o.duration_us <= 0 or o.duration_us > M.MAX_DURATION_US then
    return nil, ("--duration: %g s is not a run's length: give more than 0 and at most an hour"):format(o.duration_us / 1e6)
  end
  return src
end

-- set_interval sets --interval (when given) and reads back the interval
-- in force; nil and the message when a call fails.
local function set_interval(p, res, src, interval)
  if interval then
    local st = p:NtSetIntervalProfile(interval, src.id)
    if st ~= lab.STATUS_SUCCESS then
      return nil, ("NtSetIntervalProfile(%d, %s) failed: %s"):format(interval, src.name, lab.status_name(st))
    end
  end
  local iv, st = C.query_interval(p, src.id)
  if st ~= lab.STATUS_SUCCESS then
    return nil, ("NtQueryIntervalProfile(%s) failed: %s"):format(src.name, lab.status_name(st))
  end
  if interval and iv ~= interval then
    res.warnings[#res.warnings + 1] = ("the HAL took --interval %d as %d (its bounds or granularity): the run samples at %d"):format(interval, iv, iv)
  end
  res.interval = iv
  return true
end

-- start_logger starts the NT Kernel Logger with the events of the
-- source's interrupts: sampled-profile events for the timer (from 5.1),
-- PMC interrupt events for a counter (TraceProfileSourceConfigInfo and
-- PERF_PMC_PROFILE, from 6.2). It returns the session, or nil and a
-- note saying why there is none; nil, nil and the message when a call
-- fails.
local function start_logger(m, p, src)
  if src.id == lab.ProfileTime then
    if not C.at_least(m, 5, 1) then
      return nil, ("no NT Kernel Logger trace: its sampled-profile events arrive in Windows XP (5.1); this machine runs %s"):format(m:version())
    end
    return m:start_kernel_logger{ profile = true }
  end
  if not C.at_least(m, 6, 2) then
    return nil, ("no NT Kernel Logger trace: its PMC interrupt events arrive in Windows 8 (6.2); this machine runs %s"):format(m:version())
  end
  local s = m:start_kernel_logger{ profile = false }
  local buf = p:alloc(0x30)
  p:write_u32(buf, src.id)
  local err = p:TraceSetInformation(KERNEL_LOGGER, lab.TraceProfileSourceConfigInfo, buf, 4)
  if err ~= lab.ERROR_SUCCESS then
    s:stop()
    return nil, nil, ("TraceSetInformation(TraceProfileSourceConfigInfo, %s) failed: %s"):format(src.name, lab.win32_name(err))
  end
  -- EVENT_TRACE_GROUPMASK_INFORMATION: class, TRACEHANDLE at 8, Masks[8] at 0x10
  p:write_u32(buf, lab.EventTraceGroupMaskInformation)
  p:write_u64(buf + 8, KERNEL_LOGGER)
  for i = 0, 7 do p:write_u32(buf + 0x10 + 4 * i, i == 1 and PERF_PMC_PROFILE or 0) end
  local st = p:NtSetSystemInformation(lab.SystemPerformanceTraceInformation, buf, 0x30)
  p:free(buf)
  if st ~= lab.STATUS_SUCCESS then
    s:stop()
    return nil, nil, ("NtSetSystemInformation(EventTraceGroupMaskInformation, PERF_PMC_PROFILE) failed: %s"):format(lab.status_name(st))
  end
  return s
end

-- create_profiles creates and starts a system-wide profile of each
-- image for src, in the smallest buckets its counters fit (at most
-- M.MAX_BUFFER bytes); nil and the message when a call fails.
local function create_profiles(p, res, src)
  for _, im in ipairs(res.images) do
    local log2 = M.MIN_LOG2
    while 4 * math.ceil(im.size / 2 ^ log2) > M.MAX_BUFFER do log2 = log2 + 1 end
    if log2 > M.MIN_LOG2 then
      res.warnings[#res.warnings + 1] = ("%s is %d bytes: its profile's buckets are %d bytes, so that its counters fit in %d MB"):format(im.name, im.size, 2 ^ log2, M.MAX_BUFFER / 2 ^ 20)
    end
    local pr = P.create(p, { process = false, base = im.base, size = im.size, bucket = log2, source = src.id, check = false })
    if pr.status ~= lab.STATUS_SUCCESS then
      return nil, ("NtCreateProfile(%s, %s) failed: %s"):format(im.name, src.name, lab.status_name(pr.status))
    end
    local st = P.start(pr)
    if st ~= lab.STATUS_SUCCESS then
      return nil, ("NtStartProfile(%s, %s) failed: %s"):format(im.name, src.name, lab.status_name(st))
    end
    im.profile, im.bucket = pr, 2 ^ log2
  end
  return true
end

local function percent(share) return share < 0.001 and "<0.1%" or ("%.1f%%"):format(100 * share) end

M.PROGRAM_IMAGES = 5 -- images the program line names; the others as "and N more (X%)"

-- program_line names the program's images, the most first: the first
-- M.PROGRAM_IMAGES with their shares of the source's samples, the rest
-- as how many and their share together.
function M.program_line(images)
  local names, rest, restShare = {}, 0, 0
  for i, im in ipairs(images) do
    if i <= M.PROGRAM_IMAGES then
      names[#names + 1] = ("%s %s"):format(im.name, percent(im.share))
    else
      rest, restShare = rest + 1, restShare + im.share
    end
  end
  local s = table.concat(names, ", ")
  if rest > 0 then s = s .. (" and %d more (%s)"):format(rest, percent(restShare)) end
  return s .. " of the source's samples"
end

-- header logs what the run does.
local function header(say, m, res, o, note)
  say(("proflab profile: %s on Windows %s %s (%d processors)"):format(res.workload, m:version(), m:arch(), m:cpu_count()))
  local given = o.interval and "--interval" or "the HAL's default"
  say(("  source:   %s every %d %s (%s)%s"):format(res.source.name, res.interval,
    res.source.id == lab.ProfileTime and "× 100 ns" or "events", given, o.pebs and ", precise (PEBS)" or ""))
  if o.process then say("  process:  " .. o.process .. " (--process: the source's samples of the other processes are left out)") end
  say("  program:  " .. M.program_line(res.images))
  if res.process_warning then say("  warning:  " .. res.process_warning) end
  if res.cpus_note then say("  cpus:     " .. res.cpus_note) end
  say("  trace:    " .. (note or "the NT Kernel Logger's " .. (res.source.id == lab.ProfileTime and "sampled-profile" or "PMC interrupt") .. " events"))
end

-- quoted is a --process value as a shell takes it.
local function quoted(s)
  if s:match("^[%w%._%-#]+$") then return s end
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

--- busiest(processes) → the process of m:images's processes with the
--- largest share of the source's samples, the --process value that
--- keeps it alone, and how many processes hold samples. A name the
--- import made unique with "#PID" (two processes of one name in the
--- source) is given as its pid.
function M.busiest(processes)
  local best, n = nil, 0
  for _, pr in ipairs(processes) do
    if (pr.share or 0) > 0 then
      n = n + 1
      if not best or pr.share > best.share then best = pr end
    end
  end
  if not best then return nil, nil, n end
  local pid = best.name:match("#(%d+)$")
  return best, pid or quoted(best.name), n
end

-- process_warning is the warning of a source of several processes
-- profiled without --process; nil for one process, or with --process.
local function process_warning(info, o)
  if o.process then return nil end
  local best, arg, n = M.busiest(info.processes)
  if n < 2 then return nil end
  return ("the source holds samples of %d processes, and without --process the program is all of them (its images are every process's); the busiest by samples is %s (%s of them): add --process %s to profile that program alone"):format(
    n, best.name, percent(best.share), arg)
end

--- cpus_note(source, lab) → what to say when the source was recorded
--- on another number of processors (source: m:images's cpus, nil when
--- the source does not say) than the lab's machine has (lab); nil when
--- they agree or the source does not say. The machine is made before the
--- source is read and keeps the configuration's machine.cpus: the note
--- gives the flag that runs as many as the source had.
function M.cpus_note(source, lab)
  if not source or source == lab then return nil end
  return ("the source was recorded on %d processors, the lab runs %d (machine.cpus): add --config-set machine.cpus=%d to run as many"):format(source, lab, source)
end

-- prepare checks the request, makes the machine and finds the program's
-- images; the machine, the caller and the source, or nil, the status and
-- the message.
local function prepare(res, o)
  local m, msg = machine(o)
  if not m then return nil, C.USAGE, msg end
  local src
  src, msg = check_request(m, o)
  if not src then return nil, C.USAGE, msg end
  local info
  info, msg = C.workload_info(m, o.workload, o.import)
  if not info then return nil, C.USAGE, msg end
  res.workload = info.name
  -- Prog.images spans each image over its own functions, leaving out the
  -- lab's built-in kernel functions (its idle loop, ISR and DPC dispatch)
  -- that m:images counts into a workload's own ntoskrnl.exe: the lab
  -- runs its idle loop when no thread of the workload runs, as a source's
  -- idle samples are idle time, so neither side counts it
  for _, im in ipairs(Prog.images(info)) do
    res.images[#res.images + 1] = { name = im.name, base = im.base, size = im.size, share = im.share, kernel = im.kernel }
  end
  res.cpus_note = M.cpus_note(info.cpus, m:cpu_count())
  if res.cpus_note then res.notes[#res.notes + 1] = res.cpus_note end
  res.process_warning = process_warning(info, o)
  if res.process_warning then res.warnings[#res.warnings + 1] = res.process_warning end
  if #res.images == 0 then
    return nil, C.USAGE, ("%s: no image holds any of the source's samples: there is nothing of the program to profile"):format(res.workload)
  end
  if o.pebs then S.control_areas(m) end
  local p = C.admin(m, "proflab.exe")
  local ok, status
  ok, status, msg = C.have_source(p, src, A.sources())
  if not ok then return nil, status, status == C.USAGE and ("--source %s: %s"):format(o.source or src.name, msg) or msg end
  return m, p, src
end

--- run(opts) → res: profiles the workload's program on a new machine.
--- opts: workload (required: a path, as m:run takes), version and arch
--- (default: the configuration's), source (default Timer; TotalIssues
--- with pebs), interval (default: the HAL's), duration_us (default 10 s),
--- pebs (sample the counter precisely), process (keep the source's
--- samples of the processes of that name or pid: m:run's import.process),
--- format (the source's format: import.format), symbols (an .etl
--- trace's symbol listing: import.symbols), quiet. res: { tool, status (0, 1
--- failed, 2 refused), error, lines, warnings, workload, source = { name,
--- id }, interval, images = { { name, base, size, share, kernel, bucket,
--- hits } }, notes, run }.
function M.run(opts)
  opts = lab.options("profile.run", opts, { workload = "string", version = "string", arch = "string", source = "string",
    interval = "integer", duration_us = "integer", pebs = "boolean", quiet = "boolean", process = "string", format = "string", symbols = "string" })
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  o.duration_us = o.duration_us or M.DEFAULT_DURATION_US
  if o.process or o.format or o.symbols then o.import = { process = o.process, format = o.format, symbols = o.symbols } end
  local res, say = C.result("profile", o)
  res.images, res.notes = {}, {}
  if not o.workload then return C.fail(res, C.USAGE, "give the profile to run (the workload option; proflab profile SOURCE)") end
  local m, p, src = prepare(res, o)
  if not m then return C.fail(res, p, src) end
  res.source = src
  local ok, msg = set_interval(p, res, src, o.interval)
  if not ok then return C.fail(res, C.FAILED, msg) end
  local s, note, failed = start_logger(m, p, src)
  if failed then return C.fail(res, C.FAILED, failed) end
  if note then res.notes[#res.notes + 1] = note end
  ok, msg = create_profiles(p, res, src)
  if not ok then return C.fail(res, C.FAILED, msg) end
  header(say, m, res, o, note)
  res.run = m:run{ duration_us = o.duration_us, workload = o.workload, import = o.import }
  if res.run.bugcheck then
    return C.fail(res, C.FAILED, ("the machine bug-checked during the run: %s (0x%X)"):format(res.run.bugcheck.name, res.run.bugcheck.code))
  end
  local hits = 0
  for _, im in ipairs(res.images) do
    P.stop(im.profile)
    im.hits = P.total(im.profile)
    hits = hits + im.hits
    im.profile = nil
  end
  if s then s:stop() end
  say(("  ran:      %g s of simulated time: %d hits in the program's images"):format(o.duration_us / 1e6, hits))
  for _, w in ipairs(res.warnings) do
    if w ~= res.process_warning then say("  warning: " .. w) end -- that one is under the program line
  end
  return res
end

return M
