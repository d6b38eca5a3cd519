-- The NT Kernel Logger with stack walking, and the run's trace.etl
-- (docs/etl.md; docs/scenario-api.md, m:start_kernel_logger). As
-- `xperf -on PROC_THREAD+LOADER+PROFILE -stackwalk Profile` does, the
-- logger walks the stack of each sampled-profile event that interrupted a
-- thread and logs a StackWalk event (0x1820) right after it: the sample's
-- time and thread, the frames innermost first — the sample's IP, then a
-- return address inside each caller. An inlined frame (tok, inlined into
-- lex) is no frame of the walk. Run with --out DIR, the session is also
-- DIR/trace.etl, Windows' own trace format (with its symbol listing
-- DIR/trace.symbols), which `proflab workload import DIR/trace.etl` reads
-- back by function name.
local lab = require "proflab"
local A = require "assert"

local m = lab.machine{ version = "10.0.19041", cpus = 1, hal = { "apic" }, seed = 3 }
local p = m:process{ name = "compiler", privileges = { "SeSystemProfilePrivilege" } }
local s = m:start_kernel_logger{ profile = true, stackwalk = { "Profile" } }
m:run{ duration_us = 200000, workload = {
  image = { { name = "cc.exe", base = 0x400000, functions = {
    { name = "main", offset = 0x1000, size = 0x400 },
    { name = "parse", offset = 0x1400, size = 0x400 },
    { name = "lex", offset = 0x1800, size = 0x400 },
    { name = "tok", inline = true },
  } } },
  process = { { name = "compiler", stacks = {
    { frames = { "lex", "parse", "main" }, weight = 3 },
    { frames = { "tok", "lex", "main" }, weight = 1 },
    { frames = { "main" }, weight = 1 },
  } } },
} }
s:stop()

-- which function an address is in, for the log
local funcs = { { "main", 0x401000 }, { "parse", 0x401400 }, { "lex", 0x401800 } }
local function fn(a)
  for _, f in ipairs(funcs) do
    if a >= f[2] and a < f[2] + 0x400 then return ("%s+0x%x"):format(f[1], a - f[2]) end
  end
  return ("0x%x"):format(a)
end

local samples = s:count{ hook = lab.PERFINFO_LOG_TYPE_SAMPLED_PROFILE }
local walks = s:count{ hook = 0x1820 }
lab.log(("%d samples, %d stack walks"):format(samples, walks))
local shown, shapes, others = 0, {}, 0
for w in s:each{ hook = 0x1820 } do
  local names = {}
  for i, f in ipairs(w.Frames) do names[i] = fn(f) end
  local shape = #w.Frames
  shapes[shape] = (shapes[shape] or 0) + 1
  if shown < 4 then
    lab.log(("t=%d thread %d: %s"):format(w.EventTimeStamp, w.StackThread, table.concat(names, " <- ")))
    shown = shown + 1
  end
  if w.StackProcess ~= p:id() then others = others + 1 end
end
lab.log(("stacks of 1, 2, 3 frames: %d, %d, %d"):format(shapes[1] or 0, shapes[2] or 0, shapes[3] or 0))
A.expect_eq(others, 0, "every walk names the sample's process")
A.expect_eq(walks, samples, "a walk after every sample (one thread always runs)")
lab.check(shapes[1] ~= nil and shapes[2] ~= nil and shapes[3] ~= nil and shapes[4] == nil, "main; lex <- main (tok inlined); lex <- parse <- main")
