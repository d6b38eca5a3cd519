-- proflab profile's program (tools.profile) on a source of two programs,
-- as a whole-system recording (an .etl trace, perf -a) has them:
-- workloads/two_programs.txt is perf script text made by hand, 80 samples
-- of 250000 cpu-clock events: prog (pid 10) 60 — compute 30, KeWork 20
-- in its own ntoskrnl.exe (a Windows trace's kernel, at
-- 0xFFFFF80021489100), memcpy 10 in libc.so.6 — and other (pid 20) 20 in
-- spin. Without a process the program would be both, and the run says
-- which to keep; with import.process (--process) it is prog's images.
-- The lab's idle loop sits in its built-in ntoskrnl.exe, below the
-- source's: prog's profile of ntoskrnl.exe covers KeWork, not the idle
-- loop, so Windows' side counts no idle time, as the source's does not.
local lab = require "proflab"
local A = require "assert"
local prof = require "tools.profile"

local W = "workloads/two_programs.txt"
local info = lab.machine{}:images{ workload = W }
local shares = {}
for _, p in ipairs(info.processes) do shares[#shares + 1] = ("%s %.2f"):format(p.name, p.share) end
A.expect_eq(table.concat(shares, ", "), "prog 0.75, other 0.25", "each process's share of the source's samples")
local best, arg = prof.busiest(info.processes)
A.expect_eq({ best.name, arg }, { "prog", "prog" }, "the busiest process, and the --process that keeps it")

local all = prof.run{ workload = W, duration_us = 1000000, quiet = true }
A.expect_eq(all.status, 0, "profile of both ran")
lab.check(all.process_warning and all.process_warning:find("add --process prog", 1, true) ~= nil, "without process, a warning names the one to add")

local res = prof.run{ workload = W, duration_us = 1000000, process = "prog" }
A.expect_eq(res.status, 0, "profile of prog ran")
A.expect_eq(res.process_warning, nil, "one process: no warning")
local names = {}
for _, im in ipairs(res.images) do names[#names + 1] = im.name end
A.expect_eq(table.concat(names, " "), "prog ntoskrnl.exe libc.so.6", "prog's images, the most samples first")
local kernel = res.images[2]
-- from the page holding KeWork, so that buckets align as they would from the image's base
A.expect_eq(("0x%X+0x%X"):format(kernel.base, kernel.size), "0xFFFFF80021489000+0x110", "ntoskrnl.exe profiled over KeWork, not down to the lab's idle loop")
local hits = 0
for _, im in ipairs(res.images) do hits = hits + im.hits end
for _, im in ipairs(res.images) do
  local se = math.sqrt(im.share * (1 - im.share) / hits)
  A.expect_near(im.hits / hits, im.share, 4 * se, im.name .. "'s share of the hits: no idle time among them")
end
