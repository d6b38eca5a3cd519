-- A real Windows trace replayed: Test.x86.exe, PerfView's .NET test
-- program as PerfView recorded it on Windows 8 (core/etl/testdata),
-- imported beside this file with
--   proflab workload import perfview-net.4.5.2.x86.etl.zip --process Test.x86.exe -o test-x86.toml
-- runs on a Windows 8 machine while the timer profiles clr.dll as
-- kernrate would. Its functions run as the trace sampled them, at the
-- trace's own addresses: the CLR, and the JIT-compiled .NET methods.
local lab, P, S = require "proflab", require "profile", require "sampling"
local w = "test-x86.toml"
local m = lab.machine{ version = "6.2" }
local clr
for _, img in ipairs(m:images{ workload = w }.images) do
  if img.name == "clr.dll" then clr = img end
end
assert(clr, "the workload has no clr.dll")
local pr = P.create_and_start(m:process{ name = "Test.x86.exe", privileges = { "SeSystemProfilePrivilege" } },
  { process = false, base = clr.base, size = clr.size, bucket = 4 })
local res = m:run{ duration_us = 2000000, workload = w }
local total, clrs, jit = 0, 0, 0
for name, t in pairs(res.truth) do
  if name ~= "KiIdleLoop" then total = total + t.cycles end -- idle processors run no thread
  if t.image == "clr.dll" then clrs = clrs + t.cycles end
  if t.image == "[jit]" then jit = jit + t.cycles end
end
local samples = 0
for _, n in pairs(P.buckets(pr)) do samples = samples + n end
lab.log(("clr.dll at 0x%X: %s of the cycles (the trace: 46.7%% of its samples), [jit] %s (51.1%%)"):format(clr.base, S.pct(clrs / total), S.pct(jit / total)))
lab.log(("System.DateTime.GetDatePart: %s of the cycles (the trace: 23.3%%)"):format(S.pct(res.truth["System.DateTime.GetDatePart"].cycles / total)))
lab.log(("the timer's profile of clr.dll: %d samples"):format(samples))
