-- Checks kernrate's printed figures against the same quantities read
-- through the scenario API by an observer of its own (run by
-- scripts/tools_test.go with params: version, arch, workload (a path),
-- args (kernrate's), source (the short name of the source whose table is
-- checked), truth (check zoomed functions against the ground truth)).
--
-- The observer makes, before kernrate starts, a profile of its own over
-- every module kernrate profiles, with the same bucket size, so that each
-- interrupt that lands in a module counts once in kernrate's profile and
-- once in the observer's: the observer's buckets are "the buckets", read
-- without kernrate's help.
local lab = require "proflab"
local A = require "assert"
local kr = require "tools.kernrate"

local prm = lab.params
local m = lab.machine{ version = prm.version, arch = prm.arch }
local obs = m:process{ name = "observer", privileges = { "SeSystemProfilePrivilege" } }
local info = m:images{ workload = prm.workload }
for _, pr in ipairs(info.processes) do
  if not pr.process then pr.process = m:process{ name = pr.name } end
end
local src = lab["Profile" .. prm.source]
local zoom = {}
for i, a in ipairs(prm.args) do
  if a == "-z" then zoom[prm.args[i + 1]:lower()] = true end
end
local function zoomed(name)
  name = name:lower()
  return zoom[name] or zoom[(name:gsub("%.[^.]*$", ""))]
end

local function off(a, b) return lab.tonumber(lab.u64(a) - lab.u64(b)) end

-- the observer's profile over one image: 16-byte buckets when zoomed,
-- else one bucket per 2^k bytes covering it
local function observe(im, process)
  local k = 4
  if not zoomed(im.name) then
    k = 2
    while 2 ^ k < im.size and k < 31 do k = k + 1 end
  end
  local count = math.ceil(im.size / 2 ^ k)
  local buf, hv = obs:alloc(4 * count), obs:alloc(8)
  local h = process and obs:open_process(process) or 0
  A.expect_success(obs:NtCreateProfile(hv, h, im.base, im.size, k, buf, 4 * count, src, -1), "observer create " .. im.name)
  local ph = obs:read_u32(hv)
  A.expect_success(obs:NtStartProfile(ph), "observer start " .. im.name)
  return { image = im, buf = buf, count = count, handle = ph, bucket = 2 ^ k }
end

local observed = { kernel = {} }
for _, im in ipairs(info.images) do
  if im.kernel then observed.kernel[im.name] = observe(im) end
end
for _, pr in ipairs(info.processes) do
  local mods = {}
  for _, im in ipairs(info.images) do
    for _, n in ipairs(pr.images) do
      if n == im.name and not im.kernel then mods[im.name] = observe(im, pr.process) end
    end
  end
  observed[pr.process:id()] = mods
end

local perf0 = {}
do
  local n = m:cpu_count()
  local buf = obs:alloc(n * 0x30)
  A.expect_success(obs:NtQuerySystemInformation(lab.SystemProcessorPerformanceInformation, buf, n * 0x30, nil), "perf info before")
  for i = 0, n - 1 do perf0[i] = obs:read_u32(buf + i * 0x30 + 0x28) end
end

local res = kr.run(m, prm.args, { workload = prm.workload, quiet = true })
A.expect_eq(res.status, 0, "kernrate's status (" .. tostring(res.error) .. ")")
local r = res.run

-- the observer's counts
for _, mods in pairs(observed) do
  for _, o in pairs(mods) do
    obs:NtStopProfile(o.handle)
    o.counts = obs:read_u32s(o.buf, o.count)
    o.hits = 0
    for _, c in ipairs(o.counts) do o.hits = o.hits + c end
  end
end

-- intervals: the table's "events per hit" is what NtQueryIntervalProfile
-- and the run's hardware say
local iv = obs:alloc(4)
A.expect_success(obs:NtQueryIntervalProfile(src, iv), "query interval")
local interval = obs:read_u32(iv)
local rname = ({ [0] = "ProfileTime" })[src] or ("Profile" .. prm.source)
A.expect_eq(r.intervals[rname], interval, "the run's interval is NtQueryIntervalProfile's")

-- the printed lines, parsed
local msec = (r["end"] - r.start) / 10000
local sections, cur, tables = {}, nil, {}
for _, line in ipairs(res.lines) do
  local name, hits, per = line:match("^(%a+)%s+(%d+) hits, (%d+) events per hit %-%-%-%-%-%-%-%-$")
  if name == prm.source then
    cur = { hits = tonumber(hits), per = tonumber(per), rows = {} }
    tables[#tables + 1] = cur
  elseif name then
    cur = nil -- another source's table
  elseif line:match("^%-%-%-%-%- Zoomed module") then
    cur = { zoom = line:match("module (%S+)"), rows = {} }
    tables[#tables + 1] = cur
  else
    local n, h, ms, pct, eps = line:match("^(%S+)%s+(%d+)%s+(%d+)%s+(%d+) %%%s+(%d+)$")
    if n and cur then
      A.expect_eq(#line >= 73, true, "a row is at least 73 characters: " .. line)
      cur.rows[#cur.rows + 1] = { name = n, hits = tonumber(h), msec = tonumber(ms), pct = tonumber(pct), eps = tonumber(eps) }
    end
  end
end
A.expect_eq(#tables > 0, true, "kernrate printed tables")

-- the arithmetic of every row, from the row's own hits and its table's total
local function arithmetic(t, total, per)
  local prev = math.huge
  for _, row in ipairs(t.rows) do
    A.expect_eq(row.msec, msec, "msec is the run's elapsed time")
    A.expect_eq(row.pct, math.floor(row.hits * 100 / total), "%Total of " .. row.name)
    A.expect_near(row.eps, math.floor(row.hits * per * 1000 / msec), 1, "Events/Sec of " .. row.name)
    A.expect_eq(row.hits <= prev and row.hits > 0, true, "rows sorted by hits, none empty: " .. row.name)
    prev = row.hits
  end
end

local function sum(rows)
  local s = 0
  for _, row in ipairs(rows) do s = s + row.hits end
  return s
end

-- module tables: hits add up, and each is the observer's count
local all = 0
local secs = { res.kernel }
for _, sec in ipairs(res.processes) do secs[#secs + 1] = sec end
for i, sec in ipairs(secs) do
  local mine = observed[sec.kernel and "kernel" or sec.pid]
  local t = sec.tables[prm.source]
  local printed
  for _, tt in ipairs(tables) do
    if tt.hits and not tt.used then printed = tt; tt.used = true; break end
  end
  A.expect_eq(printed.hits, sec.hits[prm.source], "section " .. i .. ": the header's hits")
  A.expect_eq(printed.per, interval, "section " .. i .. ": events per hit is NtQueryIntervalProfile's")
  A.expect_eq(sum(printed.rows), printed.hits, "section " .. i .. ": the module hits add up to the header's")
  arithmetic(printed, printed.hits, interval)
  for _, mod in ipairs(sec.modules) do
    A.expect_eq(mod.hits[prm.source], mine[mod.name].hits, "module " .. mod.name .. ": kernrate's hits are the observer's buckets'")
  end
  A.expect_eq(#t, #printed.rows, "section " .. i .. ": one printed row per module with hits")
  all = all + printed.hits
end
-- with every process profiled, a timer interrupt's IP lies in some
-- module (a counter's may not: the pmu HAL's skid can carry it past the
-- end of a module's last function)
if #res.processes == #info.processes and src == lab.ProfileTime then
  A.expect_eq(all, r.interrupts[rname], "every interrupt of the source is a hit in some module")
end

-- interrupts per processor: the printed figures are the run's and the
-- processor performance information's
local printed_int = {}
for _, line in ipairs(res.lines) do
  local n = line:match("^       Interrupts= (%d+), Interrupt Rate= %d+/sec%.$")
  if n then printed_int[#printed_int + 1] = tonumber(n) end
end
A.expect_eq(#printed_int, m:cpu_count(), "an Interrupts= line per processor")
local buf = obs:alloc(m:cpu_count() * 0x30)
obs:NtQuerySystemInformation(lab.SystemProcessorPerformanceInformation, buf, m:cpu_count() * 0x30, nil)
for cpu = 0, m:cpu_count() - 1 do
  local by_src, n = r.interrupts_by_cpu[cpu] or {}, 0
  for _, c in pairs(by_src) do n = n + c end
  A.expect_eq(printed_int[cpu + 1], n, "P" .. cpu .. " Interrupts= is the run's count")
  A.expect_eq(printed_int[cpu + 1], obs:read_u32(buf + cpu * 0x30 + 0x28) - perf0[cpu], "P" .. cpu .. " Interrupts= is InterruptCount's rise")
end

-- zoomed modules: symbol rows are the observer's buckets by function, and
-- within sampling error of the ground truth
for _, t in ipairs(tables) do
  if t.zoom then
    local o
    for _, mods in pairs(observed) do
      for name, x in pairs(mods) do
        if name:upper() == t.zoom then o = x end
      end
    end
    local fns, by = o.image.functions, {}
    for b, c in ipairs(o.counts) do
      local at = (b - 1) * o.bucket
      for _, f in ipairs(fns) do
        local fo = off(f.base, o.image.base)
        if at >= fo and at < fo + f.size then by[f.name] = (by[f.name] or 0) + c end
      end
    end
    arithmetic(t, o.hits, interval)
    A.expect_eq(sum(t.rows), o.hits, t.zoom .. ": the symbols' hits add up to the module's")
    local cycles = 0
    for _, f in ipairs(fns) do cycles = cycles + r.truth[f.name].cycles end
    for _, row in ipairs(t.rows) do
      A.expect_eq(row.hits, by[row.name], t.zoom .. " " .. row.name .. ": the observer's buckets")
      if prm.truth then
        local p = r.truth[row.name].cycles / cycles
        local want, sd = o.hits * p, math.sqrt(o.hits * p * (1 - p))
        A.expect_near(row.hits, want, 5 * sd + 2, t.zoom .. " " .. row.name .. ": within 5 sigma of the truth")
      end
    end
  end
end
