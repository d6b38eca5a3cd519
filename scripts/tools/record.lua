-- tools.record: what wpr -start/-stop and tracelog -start/-f share on the
-- model: a recording of the NT Kernel Logger with sampled-profile events
-- (EVENT_TRACE_FLAG_PROFILE) and their stacks while the workload runs for
-- a number of seconds of simulated time, the session then stopped and
-- its .etl written to the file the tool names (by the proflab wpr and
-- proflab tracelog commands, which write the file when the run ends;
-- docs/windows-tools.md). Not a tool itself.
local lab = require "proflab"
local C = require "tools.common"

local M = {}

-- DEFAULT_SECONDS is how long a recording lasts when -duration is not
-- given: Windows records until -stop, the model for this many seconds.
M.DEFAULT_SECONDS = 10

--- duration(args, i) → the seconds of `-duration N` at args[i] (a whole
--- number from 1 to 3600), or nil and the message.
function M.duration(args, i)
  local n = C.integer(args[i + 1])
  if not n or n < 1 or n > 3600 then
    return nil, ("-duration needs the seconds of simulated time to record, 1…3600, got %s"):format(args[i + 1] and ("%q"):format(args[i + 1]) or "nothing")
  end
  return n
end

--- etl_name(file, option) → file when it names an .etl file, else nil
--- and the message.
function M.etl_name(file, option)
  if file == nil or C.option(file) then
    return nil, ("%s needs the .etl file to write, such as %s trace.etl"):format(option, option)
  end
  if not file:lower():match("%.etl$") then
    return nil, ("%s %s: the file must end in .etl (Windows' trace format)"):format(option, file)
  end
  return file
end

--- record(m, res, say, rec) → res: records rec.seconds of rec.workload
--- with the kernel logger (profile, stack walks of rec.stackwalk) and
--- asks for rec.file to be written (lab.record{ etl_file = … }). res gets
--- samples, stacks and file.
function M.record(m, res, say, rec)
  if rec.workload == nil then
    return C.fail(res, C.USAGE, ("give a workload to record (%s), the model has nothing else running"):format(rec.how))
  end
  local info, msg = C.workload_info(m, rec.workload)
  if not info then return C.fail(res, C.USAGE, msg) end
  local ok, s = pcall(m.start_kernel_logger, m, { profile = true, stackwalk = rec.stackwalk })
  if not ok then return C.fail(res, C.USAGE, (tostring(s):gsub("^.-m:start_kernel_logger", "m:start_kernel_logger"))) end
  res.run = m:run{ duration_us = rec.seconds * 1000000, workload = rec.workload }
  s:stop()
  res.samples = s:count{ hook = lab.PERFINFO_LOG_TYPE_SAMPLED_PROFILE }
  res.stacks = s:count{ hook = 0x1820 }
  res.file = rec.file
  lab.record{ etl_file = rec.file }
  say(("Recorded %d s of simulated time: %d SampledProfile events, %d stacks"):format(rec.seconds, res.samples, res.stacks))
  say(("Writing %s (NT Kernel Logger, %s)"):format(rec.file, rec.flags))
  return res
end

return M
