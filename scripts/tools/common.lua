-- tools.common: what the re-created Windows tools (tools.kernrate,
-- tools.wpr, tracelog) share: the result every run returns, option
-- parsing helpers, the administrator's process a tool runs as, and the
-- machine facts a tool prints. Not a tool itself; see docs/windows-tools.md.
local lab = require "proflab"

local M = {}

-- Exit statuses of a tool's run, as the command line maps them
-- (README's exit codes): a tool that did its work, one that failed on
-- the machine (a service refused it), one given what it cannot do.
M.OK, M.FAILED, M.USAGE = 0, 1, 2

--- result(tool, opts) → res, say: a run's result { tool, status = 0,
--- lines = {}, warnings = {} } and the function that prints a line of
--- the tool's log (kept in res.lines; also in the scenario's log unless
--- opts.quiet).
function M.result(tool, opts)
  local res = { tool = tool, status = M.OK, lines = {}, warnings = {} }
  local quiet = opts and opts.quiet
  local function say(line)
    res.lines[#res.lines + 1] = line
    if not quiet then lab.log(line) end
  end
  return res, say
end

--- fail(res, status, message) → res: the run ends with status
--- (M.FAILED or M.USAGE) and message in res.error.
function M.fail(res, status, message)
  res.status = status
  res.error = res.tool .. ": " .. message
  return res
end

--- option(arg) → the option's letters, lower case, when arg is an
--- option ("-s" and "/s" are "s"), else nil. Windows' tools take both
--- prefixes and any case.
function M.option(arg)
  local name = type(arg) == "string" and arg:match("^[-/](%a[%w]*)$")
  return name and name:lower() or nil
end

--- did_you_mean(typed, names [, prefix]) → " (did you mean
--- PREFIXNAME?)" for the name of names nearest to typed, by the rule of
--- every "did you mean" of proflab (lab.suggest), or "" when none is
--- near. A one-letter name gets none, any other letter being as near (as
--- for proflab's own flags).
function M.did_you_mean(typed, names, prefix)
  if #typed < 2 then return "" end
  local near = lab.suggest(typed, names)
  return near and (" (did you mean %s%s?)"):format(prefix or "", near) or ""
end

--- integer(text) → the whole number text holds (decimal, or 0x hex),
--- else nil.
function M.integer(text)
  if type(text) == "number" then
    return text == math.floor(text) and text >= 0 and text or nil
  end
  if type(text) ~= "string" then return nil end
  if text:match("^%d+$") then return tonumber(text) end
  local hex = text:match("^0[xX](%x+)$")
  return hex and tonumber(hex, 16) or nil
end

--- strings(args) → args as an array of strings; raises naming the
--- argument that is not a string or number.
function M.strings(args, tool)
  local out = {}
  if args == nil then return out end
  if type(args) ~= "table" then
    error(("%s: the arguments must be an array of strings, such as { \"-s\", \"5\" }, got %s"):format(tool, type(args)), 3)
  end
  for i, a in ipairs(args) do
    if type(a) ~= "string" and type(a) ~= "number" then
      error(("%s: argument %d is a %s, not a string"):format(tool, i, type(a)), 3)
    end
    out[i] = tostring(a)
  end
  return out
end

--- admin(m, name) → a process named name holding what an
--- administrator's elevated tool holds: SeSystemProfilePrivilege and
--- SeProfileSingleProcessPrivilege, high integrity.
function M.admin(m, name)
  return m:process{ name = name, integrity = "high",
    privileges = { "SeSystemProfilePrivilege", "SeProfileSingleProcessPrivilege" } }
end

--- at_least(m, major, minor) → whether the machine's Windows version is
--- major.minor or later.
function M.at_least(m, major, minor)
  local a, b = m:version():match("^(%d+)%.(%d+)")
  a, b = tonumber(a), tonumber(b)
  return a > major or (a == major and b >= minor)
end

--- read_perf(caller, n) → the processors' SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION
--- (NtQuerySystemInformation class 0x08) as { { idle, kernel, user,
--- dpc, interrupt, interrupts } , ... } (times in 100 ns units), or nil
--- and the NTSTATUS.
function M.read_perf(caller, n)
  local buf = caller:alloc(n * 0x30)
  local st = caller:NtQuerySystemInformation(lab.SystemProcessorPerformanceInformation, buf, n * 0x30, nil)
  if st ~= lab.STATUS_SUCCESS then return nil, st end
  local out = {}
  for i = 0, n - 1 do
    local e = buf + i * 0x30
    out[i + 1] = {
      idle = lab.tonumber(caller:read_u64(e)), kernel = lab.tonumber(caller:read_u64(e + 0x08)),
      user = lab.tonumber(caller:read_u64(e + 0x10)), dpc = lab.tonumber(caller:read_u64(e + 0x18)),
      interrupt = lab.tonumber(caller:read_u64(e + 0x20)), interrupts = caller:read_u32(e + 0x28),
    }
  end
  caller:free(buf)
  return out
end

--- query_interval(caller, source) → the source's interval
--- (NtQueryIntervalProfile) and the NTSTATUS.
function M.query_interval(caller, source)
  local iv = caller:alloc(4)
  local st = caller:NtQueryIntervalProfile(source, iv)
  local v = caller:read_u32(iv)
  caller:free(iv)
  return v, st
end

--- have_source(caller, s, all) → true when the machine's HALs have
--- source s ({ name, id }): NtQueryIntervalProfile gives it an interval;
--- else nil, M.FAILED and the message when the query fails, or nil,
--- M.USAGE and why (naming the sources of all, { { name, id }, … }, the
--- HALs have) when the interval is 0, as for a source no HAL supports.
function M.have_source(caller, s, all)
  local iv, st = M.query_interval(caller, s.id)
  if st ~= lab.STATUS_SUCCESS then
    return nil, M.FAILED, ("NtQueryIntervalProfile(%s) failed: %s"):format(s.name, lab.status_name(st))
  end
  if iv == 0 then
    local have = {}
    for _, k in ipairs(all) do
      if M.query_interval(caller, k.id) ~= 0 then have[#have + 1] = k.name end
    end
    return nil, M.USAGE, ("this machine's HALs do not have that source (NtQueryIntervalProfile gives 0); they have %s"):format(table.concat(have, ", "))
  end
  return true
end

--- workload_info(m, workload[, import]) → what m:images{ workload,
--- import } returns (import: the choices of a profile's import), with
--- a machine process made for each workload process of a name the
--- machine does not have yet (m:run runs every workload process of a
--- name in the first machine process of that name); nil and the message
--- ("workload: …") when the workload is refused.
function M.workload_info(m, workload, import)
  local ok, info = pcall(m.images, m, { workload = workload, import = import })
  if not ok then
    -- m:images's message without its position and field prefix
    local msg = tostring(info):gsub("^.-m:images{%.%.%.}: field \"workload\": ", "")
    local field, why = msg:match('m:images{%.%.%.}%.import{%.%.%.}: field "(%w+)": (.*)$')
    if field then return nil, ("--%s: %s"):format(field, why) end
    return nil, "workload: " .. msg
  end
  local made = {}
  for _, pr in ipairs(info.processes) do
    if not pr.process then
      made[pr.name] = made[pr.name] or m:process{ name = pr.name }
      pr.process = made[pr.name]
    end
  end
  return info
end

return M
