-- tools.kernrate_log: kernrate's log, laid out as the published captures
-- of kernrate.exe (Windows 7 WDK) have it (windows-tools.md): the banner,
-- the machine, the command line, the profile lines, the Overall Summary
-- from the processors' performance information, and the module tables
-- with their arithmetic. For tools.kernrate; the numbers it prints are
-- the ones it puts in the result.
local lab = require "proflab"

local M = {}

-- offset is address − base as a number (addresses may be u64 values).
local function offset(address, base)
  return lab.tonumber(lab.u64(address) - lab.u64(base))
end

-- A row of a module table: name left-aligned, Hits, msec, %Total and
-- Events/Sec right-aligned, 73 characters wide (the first capture's
-- width; a longer name pushes the columns right).
local ROW = "%-32s%10d%11d%6d %%%12d"
local HEAD = ("%-32s%10s%11s%8s%12s"):format("Module", "Hits", "msec", "%Total", "Events/Sec")

--- label(name) → the module's base name in capitals without its
--- extension ("ntoskrnl.exe" → "NTOSKRNL"), as the module table shows it.
function M.label(name)
  local f = M.file(name)
  -- a pseudo-file of Linux's, such as perf's "[kernel.kallsyms]", keeps
  -- its own name: "KERNEL.KALLSYMS", not "[KERNEL"
  local inner = f:match("^%[(.+)%]$")
  if inner then return inner:upper() end
  return (f:gsub("%.[^.]*$", "")):upper()
end

--- file(name) → the module's file name without its folder
--- ("/usr/lib/libc.so.6" → "libc.so.6"), for workloads imported from
--- other systems' profiles.
function M.file(name)
  return name:match("[^/\\]+$") or name
end

--- events_per_sec(hits, per_hit, msec) → hits × events per hit per
--- second of msec, rounded down (exact while hits × per_hit < 2^53).
function M.events_per_sec(hits, per_hit, msec)
  if msec <= 0 then return 0 end
  local q = hits * per_hit
  local whole = math.floor(q / msec)
  return whole * 1000 + math.floor((q - whole * msec) * 1000 / msec)
end

--- percent(hits, total) → hits as a whole percentage of total, rounded down.
function M.percent(hits, total)
  if total <= 0 then return 0 end
  return math.floor(hits * 100 / total)
end

-- hms formats 100 ns units as h:mm:ss.mmm.
local function hms(t)
  local ms = math.floor(t / 10000)
  return ("%d:%02d:%02d.%03d"):format(math.floor(ms / 3600000), math.floor(ms / 60000) % 60, math.floor(ms / 1000) % 60, ms % 1000)
end

local function share(x, total)
  if total <= 0 then return 0 end
  return x * 100 / total
end

--- header(say, m, res, secs) prints the banner, the machine, the command
--- line, the options ignored and the profile lines.
function M.header(say, m, res, secs)
  say(" /==============================\\")
  say("<         KERNRATE LOG           >")
  say(" \\==============================/")
  say(("Number of Processors: %d"):format(m:cpu_count()))
  say("PROCESSOR_ARCHITECTURE: " .. (m:arch() == "x64" and "AMD64" or "x86"))
  local major, minor, build = m:version():match("^(%d+)%.(%d+)%.?(%d*)$")
  say(("OS Version: %s.%s%s"):format(major, minor, build ~= "" and (" Build " .. build) or ""))
  say("Kernrate User-Specified Command Line:")
  local words = { "kernrate.exe" }
  for _, a in ipairs(res.args) do words[#words + 1] = a:find("%s") and ('"' .. a .. '"') or a end
  say(table.concat(words, " "))
  for _, w in ipairs(res.warnings) do say("===> " .. w) end
  say("")
  say("")
  local names = {}
  for _, s in ipairs(res.sources) do names[#names + 1] = s.name .. "," end
  local src = table.concat(names, " ")
  for _, sec in ipairs(secs) do
    if sec.kernel then
      say("Kernel Profile (PID = 0): Source= " .. src)
    else
      say(("User Mode Profile (PID = %d): Source= %s"):format(sec.pid, src))
    end
  end
  for _, s in ipairs(res.sources) do
    if s.given then
      say(("Using User-Specified Rate of %d events/hit for %s"):format(s.rate, s.name))
    else
      say(("Using Kernrate Default Rate of %d events/hit"):format(s.rate))
    end
  end
end

--- collecting(say, req) prints the collection lines, and a line for each
--- source whose HAL set another interval than the one asked for.
function M.collecting(say, req)
  for _, s in ipairs(req.sources) do
    if s.interval ~= s.rate then
      say(("===> The HAL set %s to %d events/hit, not the %d asked for: the tables use %d"):format(s.name, s.interval, s.rate, s.interval))
    end
  end
  say("Starting to collect profile data")
  say("")
  say(("***> Collecting profile data for %d seconds of simulated time"):format(req.seconds))
  say("===> Finished Collecting Data, Starting to Process Results")
end

-- processor is one processor's (or the total's) figures from the
-- performance information before and after.
local function processor(b, a, msec)
  local idle = a.idle - b.idle
  local p = { kernel = (a.kernel - b.kernel) - idle, user = a.user - b.user, idle = idle,
    dpc = a.dpc - b.dpc, interrupt = a.interrupt - b.interrupt, interrupts = a.interrupts - b.interrupts }
  p.rate = msec > 0 and math.floor(p.interrupts * 1000 / msec + 0.5) or 0
  return p
end

local function times(say, label, p)
  local all = p.kernel + p.user + p.idle
  say(("%-7sK %s (%4.1f%%)  U %s (%4.1f%%)  I %s (%4.1f%%)"):format(label, hms(p.kernel), share(p.kernel, all),
    hms(p.user), share(p.user, all), hms(p.idle), share(p.idle, all)))
  say(("DPC %s (%4.1f%%)  Interrupt %s (%4.1f%%)"):format(hms(p.dpc), share(p.dpc, all), hms(p.interrupt), share(p.interrupt, all)))
end

--- summary(say, res, before, after) fills res.processors and res.total
--- and prints the Overall Summary.
function M.summary(say, res, before, after)
  say("")
  say("------------Overall Summary:--------------")
  say("")
  res.processors = {}
  local total = { kernel = 0, user = 0, idle = 0, dpc = 0, interrupt = 0, interrupts = 0 }
  for i = 1, #after do
    local p = processor(before[i], after[i], res.msec)
    p.cpu = i - 1
    res.processors[i] = p
    for k in pairs(total) do total[k] = total[k] + p[k] end
    times(say, "P" .. (i - 1), p)
    say(("       Interrupts= %d, Interrupt Rate= %d/sec."):format(p.interrupts, p.rate))
    say("")
  end
  total.rate = res.msec > 0 and math.floor(total.interrupts * 1000 / res.msec + 0.5) or 0
  res.total = total
  times(say, "TOTAL", total)
  say(("       Total Interrupts= %d, Total Interrupt Rate= %d/sec."):format(total.interrupts, total.rate))
  say("")
  say("")
  say(("Total Profile Time = %d msec"):format(res.msec))
  say("")
  say("===> Memory, pagefile, context switch, system call and I/O counters (SystemPerformanceInformation) are not in the model: left out")
end

-- table_rows builds the rows of one table: entries { name, hits } with
-- hits > 0, sorted by hits then name, with the columns' arithmetic.
local function table_rows(entries, total, per_hit, msec)
  local rows = {}
  for _, e in ipairs(entries) do
    if e.hits > 0 then
      rows[#rows + 1] = { name = e.name, hits = e.hits, msec = msec, percent = M.percent(e.hits, total),
        events_per_sec = M.events_per_sec(e.hits, per_hit, msec) }
    end
  end
  table.sort(rows, function(a, b)
    if a.hits ~= b.hits then return a.hits > b.hits end
    return a.name < b.name
  end)
  return rows
end

local function print_rows(say, rows)
  say(HEAD)
  for _, r in ipairs(rows) do say(ROW:format(r.name, r.hits, r.msec, r.percent, r.events_per_sec)) end
end

--- symbols(mod, counts, bucket) → { { name, hits } } of a zoomed module:
--- each bucket goes to the function at or below its start ("Rounding
--- Down"); buckets below the first function to "(no symbol)".
function M.symbols(mod, counts, bucket)
  local fns, hits, order = mod.image.functions, {}, {}
  local offs = {}
  for i, f in ipairs(fns) do offs[i] = offset(f.base, mod.image.base) end
  local j = 0
  for b, c in ipairs(counts) do
    local start = (b - 1) * bucket
    while j < #fns and offs[j + 1] <= start do j = j + 1 end
    if c > 0 then
      local name = j > 0 and fns[j].name or "(no symbol)"
      if not hits[name] then order[#order + 1] = name; hits[name] = 0 end
      hits[name] = hits[name] + c
    end
  end
  local out = {}
  for _, name in ipairs(order) do out[#out + 1] = { name = name, hits = hits[name] } end
  return out
end

-- section_tables fills sec.hits and sec.tables[source name] and prints
-- the section's module tables, then its zoomed modules.
local function section_tables(say, res, sec)
  sec.hits, sec.tables = {}, {}
  for _, s in ipairs(res.sources) do
    local entries, total = {}, 0
    for _, mod in ipairs(sec.modules) do
      mod.name = mod.image.name
      entries[#entries + 1] = { name = M.label(mod.image.name), hits = mod.hits[s.name] }
      total = total + mod.hits[s.name]
    end
    sec.hits[s.name] = total
    sec.tables[s.name] = table_rows(entries, total, s.interval, res.msec)
    say(("%-6s %d hits, %d events per hit --------"):format(s.name, total, s.interval))
    print_rows(say, sec.tables[s.name])
    say("")
  end
  for _, mod in ipairs(sec.modules) do
    if mod.zoomed then
      local bucket = 2 ^ mod.log2
      mod.bucket, mod.symbols = bucket, {}
      say(("----- Zoomed module %s (Bucket size = %d bytes, Rounding Down) --------"):format(M.file(mod.image.name):upper(), bucket))
      for _, s in ipairs(res.sources) do
        if #res.sources > 1 then say(("%-6s %d hits, %d events per hit --------"):format(s.name, mod.hits[s.name], s.interval)) end
        mod.symbols[s.name] = table_rows(M.symbols(mod, mod.buckets[s.name], bucket), mod.hits[s.name], s.interval, res.msec)
        print_rows(say, mod.symbols[s.name])
        say("")
      end
    end
  end
end

--- results(say, res, before, after, secs, req) fills the result's
--- figures (processors, total, kernel, processes) and prints the log's
--- second half: the Overall Summary, the kernel's and each process's
--- tables, the zoomed modules and the END OF RUN lines.
function M.results(say, res, before, after, secs)
  M.summary(say, res, before, after)
  res.processes = {}
  for _, sec in ipairs(secs) do
    say("")
    if sec.kernel then
      res.kernel = sec
      say("Results for Kernel Mode:")
      say("-----------------------------")
      say("")
      say(("OutputResults: KernelModuleCount = %d"):format(#sec.modules))
      say("Percentage in the following table is based on the Total Hits for the Kernel")
    else
      res.processes[#res.processes + 1] = sec
      say(("Results for User Mode Process %s (PID = %d):"):format(M.label(sec.name), sec.pid))
      say("-----------------------------")
      say("")
      say(("OutputResults: ProcessModuleCount = %d"):format(#sec.modules))
      say("Percentage in the following table is based on the Total Hits for this Process")
    end
    say("")
    section_tables(say, res, sec)
  end
  say("================================= END OF RUN ==================================")
  say("============================== NORMAL END OF RUN ==============================")
end

return M
