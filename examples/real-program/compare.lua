-- What would Windows' timer, a counter and PEBS have shown of a real
-- program, on Windows 7 and Windows 10? prog.pb.gz is prog/main.go's own
-- CPU profile (runtime/pprof); m:run imports it as it reads it. The
-- program's image is the one holding most of the profile's samples
-- (program.image), not the first in address order, which for a perf
-- dwarf or callgrind recording is the loader (ld-linux) or vgpreload.
-- `proflab profile prog.pb.gz --out DIR` asks the same in one command.
local lab, P, S, Prog = require "proflab", require "profile", require "sampling", require "program"
local rows, notes = {}, {}
for _, v in ipairs { "6.1", "10.0" } do
  for _, how in ipairs { { "ProfileTime" }, { "ProfileTotalIssues", "pmu" }, { "ProfileTotalIssues", "pebs" } } do
    if how[2] == "pebs" and v == "6.1" then -- PEBS needs the control areas of 6.2
      notes[#notes + 1] = "no PEBS on 6.1: SystemProcessorProfileControlArea, which PEBS needs, arrives in 6.2"
    else
      local m, src = lab.machine{ version = v, hal = { "apic", how[2] } }, lab[how[1]]
      if how[2] == "pebs" then S.control_areas(m) end
      local img = Prog.image(m:images{ workload = "prog.pb.gz" })
      local pr = P.create_and_start(m:process{ privileges = { "SeSystemProfilePrivilege" } }, { process = false, base = img.base, size = img.size, bucket = 4, source = src })
      local res = m:run{ duration_us = 2000000, workload = "prog.pb.gz" }
      local a = S.accuracy(P.buckets(pr), img.base, 4, res, S.event_of(src))
      local tv = a.tv and ("%.4f"):format(a.tv) or "-"
      local expected = a.expected and ("%.4f"):format(a.expected) or "-"
      rows[#rows + 1] = { v, how[1], how[2] or "apic", a.samples, tv, expected, S.p_text(a), a.verdict }
    end
  end
end
S.table("prog.pb.gz on the lab: distance from the truth", { "version", "source", "HAL", "samples", "TV", "expected", "p", "verdict" }, rows)
for _, n in ipairs(notes) do lab.log(n) end
