-- tools.kernrate: kernrate.exe, the Kernel Profiler, re-created on the
-- model as a client of the scenario API (docs/windows-tools.md). It makes
-- the calls kernrate makes, in its order: the processors' performance
-- information (NtQuerySystemInformation class 0x08) at the start and the
-- end, NtSetIntervalProfile for each source, NtCreateProfile and
-- NtStartProfile for every module (process NULL for the kernel's modules,
-- the process's handle for a process's), the sampling time (m:run),
-- NtStopProfile, the buckets read back, NtClose; then it prints its log.
-- Every number in the log is a service's answer or arithmetic on them.
--
--   local kr = require "tools.kernrate"
--   local res = kr.run(m, { "-s", "5", "-z", "server.exe" }, { workload = "server.toml" })
--   -- res.kernel.modules[i].hits.Time, res.processors[1].interrupts, res.lines …
local lab = require "proflab"
local C = require "tools.common"
local A = require "tools.kernrate_args"
local L = require "tools.kernrate_log"

local M = {}

M.DEFAULT_RATE, M.DEFAULT_BUCKET = A.DEFAULT_RATE, A.DEFAULT_BUCKET

--- parse(args) → the request kernrate makes of args (see
--- tools.kernrate_args), or nil and the message.
function M.parse(args)
  return A.parse(C.strings(args, "kernrate"))
end

-- matches reports whether the module named name is the one a user
-- names with text: its file name or its base name, in any case.
local function matches(name, text)
  local a, b = name:lower(), text:lower()
  local file = L.file(a)
  return a == b or file == b or file:gsub("%.[^.]*$", "") == b
end

-- process_modules is the user-mode images a process runs, in address
-- order.
local function process_modules(info, pr)
  local wanted = {}
  for _, n in ipairs(pr.images) do wanted[n] = true end
  local out = {}
  for _, im in ipairs(info.images) do
    if not im.kernel and (wanted[im.name] or im.process == pr.name) then out[#out + 1] = im end
  end
  return out
end

-- selected is the workload's processes that -a, -n and -p select, or
-- nil and the message.
local function selected(req, info)
  local out, seen = {}, {}
  -- two workload processes of one name are one process of the machine
  -- (m:run finds the first of the name): one section, both's images
  local function add(pr)
    local pid = pr.process:id()
    if not seen[pid] then
      seen[pid] = { name = pr.name, process = pr.process, images = {} }
      out[#out + 1] = seen[pid]
    end
    for _, n in ipairs(pr.images) do table.insert(seen[pid].images, n) end
  end
  for _, pr in ipairs(info.processes) do
    if req.all then add(pr) end
  end
  local names = {}
  for _, pr in ipairs(info.processes) do names[#names + 1] = ("%s (PID = %d)"):format(pr.name, pr.process:id()) end
  for _, n in ipairs(req.names) do
    local found = false
    for _, pr in ipairs(info.processes) do
      if matches(pr.name, n) or matches(pr.name .. ".exe", n) then add(pr); found = true end
    end
    if not found then return nil, ("-n %s: the workload has no process of that name; it has %s"):format(n, table.concat(names, ", ")) end
  end
  for _, pid in ipairs(req.pids) do
    local found = false
    for _, pr in ipairs(info.processes) do
      if pr.process:id() == pid then add(pr); found = true end
    end
    if not found then return nil, ("-p %d: the workload runs no process with that id; it has %s"):format(pid, table.concat(names, ", ")) end
  end
  return out
end

-- sections builds the kernel's section and one per selected process:
-- { title, pid, process, modules = { { name, base, size, functions, zoomed } } }.
local function sections(req, info)
  local kernel = { kernel = true, pid = 0, modules = {} }
  for _, im in ipairs(info.images) do
    if im.kernel then kernel.modules[#kernel.modules + 1] = { image = im } end
  end
  local out = { kernel }
  local procs, err = selected(req, info)
  if not procs then return nil, err end
  for _, pr in ipairs(procs) do
    local s = { name = pr.name, pid = pr.process:id(), process = pr.process, modules = {} }
    for _, im in ipairs(process_modules(info, pr)) do s.modules[#s.modules + 1] = { image = im } end
    out[#out + 1] = s
  end
  local all = {}
  for _, z in ipairs(req.zoom) do
    local found = false
    for _, s in ipairs(out) do
      for _, mod in ipairs(s.modules) do
        all[mod.image.name] = true
        if matches(mod.image.name, z) then mod.zoomed, found = true, true end
      end
    end
    if not found then
      local names = {}
      for n in pairs(all) do names[#names + 1] = n end
      table.sort(names)
      for _, im in ipairs(info.images or {}) do
        if not im.kernel and matches(im.name, z) then
          return nil, ("-z %s: a user-mode module, not profiled: add -a (every process), -n NAME or -p PID to profile its process"):format(z)
        end
      end
      return nil, ("-z %s: no profiled module has that name; the modules are %s"):format(z, table.concat(names, ", "))
    end
  end
  return out
end

-- supported checks that the machine's HALs have each source (kernrate
-- asks NtQueryIntervalProfile: 0 means none); nil and the message when
-- one is missing or the query fails.
local function supported(p, req)
  for _, s in ipairs(req.sources) do
    local ok, status, msg = C.have_source(p, s, A.sources())
    if not ok then
      return nil, status, status == C.USAGE and ("-i %s: %s"):format(s.name, msg) or msg
    end
  end
  return true
end

-- set_intervals sets each source's rate and reads back the interval in
-- force (s.interval); nil and the message when a call fails.
local function set_intervals(p, req)
  for _, s in ipairs(req.sources) do
    local st = p:NtSetIntervalProfile(s.rate, s.id)
    if st ~= lab.STATUS_SUCCESS then
      return nil, ("NtSetIntervalProfile(%d, %s) failed: %s"):format(s.rate, s.name, lab.status_name(st))
    end
    local iv
    iv, st = C.query_interval(p, s.id)
    if st ~= lab.STATUS_SUCCESS then
      return nil, ("NtQueryIntervalProfile(%s) failed: %s"):format(s.name, lab.status_name(st))
    end
    s.interval = iv
  end
  return true
end

-- log2 is the bucket size argument of a module's profile: the zoom
-- bucket, or one bucket over the whole module (at most 2 GB each).
local function log2_of(bytes)
  local k = 2
  while 2 ^ k < bytes and k < 31 do k = k + 1 end
  return k
end

-- MAX_BUFFER bounds one profile's counters (a zoomed module of 1 GB at
-- 4-byte buckets would need a 1 GB buffer, and its buckets a table as
-- large in the Lua state): 4 Mi buckets, 64 MB at 16 bytes each.
local MAX_BUFFER = 16 * 1024 * 1024

-- create makes and starts one profile of mod for source s; nil and the
-- message when a call fails.
local function create(p, section, mod, s, bucket)
  local im = mod.image
  local k = mod.zoomed and log2_of(bucket) or log2_of(im.size)
  local count = math.ceil(im.size / 2 ^ k)
  if 4 * count > MAX_BUFFER then
    return nil, C.USAGE, ("-z %s: %d buckets of %d bytes need %d MB of counters, more than the 16 MB a profile may have here; give a larger -b"):format(im.name, count, 2 ^ k, math.ceil(4 * count / 2 ^ 20))
  end
  local pr = { source = s, log2 = k, count = count, buffer = p:alloc(4 * count) }
  local hv = p:alloc(8)
  local st = p:NtCreateProfile(hv, section.handle or 0, im.base, im.size, k, pr.buffer, 4 * count, s.id, -1)
  if st ~= lab.STATUS_SUCCESS then
    return nil, C.FAILED, ("NtCreateProfile(%s, %s) failed: %s"):format(im.name, s.name, lab.status_name(st))
  end
  pr.handle = p:read_u32(hv)
  st = p:NtStartProfile(pr.handle)
  if st ~= lab.STATUS_SUCCESS then
    return nil, C.FAILED, ("NtStartProfile(%s, %s) failed: %s"):format(im.name, s.name, lab.status_name(st))
  end
  return pr
end

-- start creates every module's profiles (mod.profiles[source name]);
-- nil, the status and the message when one fails (the profiles made
-- so far are closed).
local function start(p, req, secs)
  local made = {}
  for _, section in ipairs(secs) do
    if section.process then section.handle = p:open_process(section.process, lab.PROCESS_QUERY_INFORMATION) end
    for _, mod in ipairs(section.modules) do
      mod.profiles = {}
      for _, s in ipairs(req.sources) do
        local pr, status, msg = create(p, section, mod, s, req.bucket)
        if not pr then
          for _, q in ipairs(made) do p:NtClose(q.handle) end
          return nil, status, msg
        end
        mod.profiles[s.name], made[#made + 1] = pr, pr
      end
    end
  end
  return true
end

-- collect stops every profile, reads its buckets back and closes it.
local function collect(p, secs)
  for _, section in ipairs(secs) do
    for _, mod in ipairs(section.modules) do
      mod.buckets, mod.hits = {}, {}
      for name, pr in pairs(mod.profiles) do
        p:NtStopProfile(pr.handle)
        local counts = p:read_u32s(pr.buffer, pr.count)
        local total = 0
        for _, c in ipairs(counts) do total = total + c end
        mod.buckets[name], mod.hits[name], mod.log2 = counts, total, pr.log2
        p:NtClose(pr.handle)
        p:free(pr.buffer)
      end
      mod.profiles = nil
    end
    if section.handle then p:NtClose(section.handle) end
  end
end

-- prepare checks what the run needs before any call changes the machine;
-- it returns the request, the caller and the sections, or nil, the status
-- and the message.
local function prepare(m, args, opts)
  local req, msg = A.parse(args)
  if not req then return nil, C.USAGE, msg end
  if not C.at_least(m, 5, 0) then
    return nil, C.USAGE, ("kernrate runs on Windows 2000 (5.0) and later; this machine runs %s"):format(m:version())
  end
  if opts.workload == nil then
    return nil, C.USAGE, "give a workload to profile (the workload option; proflab kernrate --workload FILE): kernrate samples what runs"
  end
  local info
  info, msg = C.workload_info(m, opts.workload)
  if not info then return nil, C.USAGE, msg end
  local secs
  secs, msg = sections(req, info)
  if not secs then return nil, C.USAGE, msg end
  local p = opts.process or C.admin(m, "kernrate.exe")
  local ok, status
  ok, status, msg = supported(p, req)
  if not ok then return nil, status, msg end
  return req, p, secs
end

--- run(m, args [, opts]) → res: runs `kernrate ARGS` on machine m.
--- opts: workload (required: a path or table, as m:run takes), process
--- (the caller kernrate runs as; default a new administrator's
--- "kernrate.exe"), quiet (do not log the lines). res: { tool, status
--- (0, 1 failed, 2 refused), error, lines, warnings, sources, msec,
--- processors, total, kernel, processes, run } (docs/windows-tools.md).
function M.run(m, args, opts)
  lab.arguments("kernrate.run", { "m:object" }, m)
  opts = lab.options("kernrate.run", opts, { workload = "string|table", process = "object", quiet = "boolean" })
  local res, say = C.result("kernrate", opts)
  args = C.strings(args, "kernrate")
  local req, p, secs = prepare(m, args, opts)
  if not req then return C.fail(res, p, secs) end
  res.sources, res.args = req.sources, args
  for _, o in ipairs(req.ignored) do
    res.warnings[#res.warnings + 1] = ("%s is a kernrate option out of the model's reach: ignored"):format(o)
  end
  L.header(say, m, res, secs)
  local ok, msg = set_intervals(p, req)
  if not ok then return C.fail(res, C.FAILED, msg) end
  local n = m:cpu_count()
  local before, st = C.read_perf(p, n)
  if not before then return C.fail(res, C.FAILED, "NtQuerySystemInformation(SystemProcessorPerformanceInformation) failed: " .. lab.status_name(st)) end
  local status
  ok, status, msg = start(p, req, secs)
  if not ok then return C.fail(res, status, msg) end
  L.collecting(say, req)
  res.run = m:run{ duration_us = req.seconds * 1000000, workload = opts.workload }
  if res.run.bugcheck then
    -- Windows 8's inclusive-end defect, say: the machine stopped, and
    -- nothing can be read back from it
    return C.fail(res, C.FAILED, ("the machine bug-checked during the run: %s (0x%X)"):format(res.run.bugcheck.name, res.run.bugcheck.code))
  end
  local after
  after, st = C.read_perf(p, n)
  collect(p, secs)
  if not after then return C.fail(res, C.FAILED, "NtQuerySystemInformation(SystemProcessorPerformanceInformation) failed: " .. lab.status_name(st)) end
  res.msec = (res.run["end"] - res.run.start) / 10000
  L.results(say, res, before, after, secs, req)
  return res
end

return M
