-- kernrate, the Kernel Profiler, re-created on the model
-- (docs/windows-tools.md): Windows 7 x86, a text editor and its display
-- driver (examples/workloads/desktop-x86.toml) profiled for 5 simulated
-- seconds at kernrate's default 25000 events per hit, the editor's and
-- the driver's functions zoomed, user mode too (-a). The golden log is
-- kernrate's log; the checks hold it to what the services answered.
local lab = require "proflab"
local A = require "assert"
local kr = require "tools.kernrate"

local m = lab.machine{ version = "6.1", arch = "x86" }
local res = kr.run(m, { "-s", "5", "-z", "editor.exe", "-z", "dispdrv.sys", "-a" },
  { workload = "../examples/workloads/desktop-x86.toml" })
A.expect_eq(res.status, 0, "kernrate ran")

-- the tables' figures are in the result: every hit is a timer interrupt
-- of the run, and the processors' counts are the run's
local hits = res.kernel.hits.Time
for _, p in ipairs(res.processes) do hits = hits + p.hits.Time end
A.expect_eq(hits, res.run.interrupts.ProfileTime, "the modules' hits are the run's timer interrupts")
A.expect_eq(res.total.interrupts, res.run.interrupts.ProfileTime, "Total Interrupts= is the run's count")
A.expect_eq(res.sources[1].interval, res.run.intervals.ProfileTime, "25000 events per hit is what the timer ran at")

-- each zoomed function's share of its module's hits is within sampling
-- error of its share of the module's cycles
for _, sec in ipairs({ res.kernel, res.processes[1] }) do
  for _, mod in ipairs(sec.modules) do
    if mod.zoomed then
      local cycles = 0
      for _, f in ipairs(mod.image.functions) do cycles = cycles + res.run.truth[f.name].cycles end
      for _, row in ipairs(mod.symbols.Time) do
        local p = res.run.truth[row.name].cycles / cycles
        local n = mod.hits.Time
        A.expect_near(row.hits, n * p, 5 * math.sqrt(n * p * (1 - p)) + 2, row.name .. " within 5 sigma of the truth")
      end
    end
  end
end
