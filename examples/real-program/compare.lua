-- What would Windows' timer, a counter and PEBS have shown for a real
-- program, on Windows 7 and Windows 10? prog.pb.gz is prog/main.go's own
-- CPU profile (runtime/pprof); m:run imports it as it reads it.
local lab, P, S = require "proflab", require "profile", require "sampling"
local rows = {}
for _, v in ipairs { "6.1", "10.0" } do
  for _, how in ipairs { { "ProfileTime", "apic" }, { "ProfileTotalIssues", "pmu" }, { "ProfileTotalIssues", "pebs" } } do
    local m = lab.machine{ version = v, hal = { "apic", how[2] } }
    if how[2] == "pebs" then S.control_areas(m) end
    local img = m:images{ workload = "prog.pb.gz" }.images[1]
    local p = m:process{ name = "profiler", privileges = { "SeSystemProfilePrivilege" } }
    local pr = P.create_and_start(p, { process = false, base = img.base, size = img.size, bucket = 4, source = lab[how[1]] })
    local a = S.accuracy(P.buckets(pr), img.base, 4, m:run{ duration_us = 2000000, workload = "prog.pb.gz" }, S.event_of(lab[how[1]]))
    rows[#rows + 1] = { v, how[1], how[2], a.samples, ("%.4f"):format(a.tv), ("%.4f"):format(a.bound), a.within and "yes" or "no" }
  end
end
S.table("prog.pb.gz on the lab: distance from the truth", { "version", "source", "HAL", "samples", "TV", "noise bound", "within" }, rows)
