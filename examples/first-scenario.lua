-- A first scenario: a guided tour of proflab in about 80 lines.
--
-- Run it with:   bin/proflab run examples/first-scenario.lua
-- (`make quickstart` builds proflab and the HAL plugins, then runs it.)
--
-- A scenario is a Lua script. It builds simulated machines, calls the
-- Windows profiling services on them exactly as a program would, and
-- checks what comes back. Every check that fails is printed with its
-- file:line; the run exits 0 only when all of them pass.

local lab = require "proflab"      -- the lab: machines, constants, checks
local P = require "profile"        -- helpers from proflab's Lua library

-- 1. A machine: Windows 8 (6.2) on x64 with 2 processors. Its HALs are
--    plugin processes: "apic" (the timer, ProfileTime) and "pmu"
--    (performance counters). Every field is optional.
local m = lab.machine{ version = "6.2", arch = "x64", cpus = 2, hal = { "apic", "pmu" } }

-- 2. A user process. Without SeSystemProfilePrivilege it may profile
--    itself, but not user space globally.
local p = m:process{ name = "app" }

-- 3. The services take their arguments positionally, as declared in
--    Windows. Pointers are addresses in the process's memory: allocate a
--    handle variable and a counter buffer, then create a profile of the
--    region 0x400000..0x401000 in 4-byte buckets (BucketSize = log2 = 2).
local handle_var = p:alloc(8)
local buffer = p:alloc(0x1000)                 -- 1024 ULONG counters
local st = p:NtCreateProfile(handle_var, lab.NtCurrentProcess, 0x400000, 0x1000, 2,
                             buffer, 0x1000, lab.ProfileTime, -1)
lab.check(st == lab.STATUS_SUCCESS, "NtCreateProfile: " .. lab.status_name(st))
local h = p:read_u64(handle_var)
lab.check(p:NtStartProfile(h) == lab.STATUS_SUCCESS, "NtStartProfile")

-- 4. Profile interrupts. In a full run the HALs' timers raise them
--    (m:run); here we raise them by hand, as the HAL would, with the
--    interrupted instruction pointer.
m:interrupt{ cpu = 0, ip = 0x400010, process = p }
m:interrupt{ cpu = 1, ip = 0x400013, process = p }
lab.check(p:read_u32(buffer + 0x10) == 2, "both hits land in bucket 4 (byte offset 0x10)")

-- 5. The reference's Windows 8 defect: an interrupt at exactly the end
--    of the region increments the ULONG past the buffer. This buffer ends
--    a page, so the write faults at profile IRQL: bug check 0x0A.
local ok, bc = m:interrupt{ cpu = 0, ip = 0x401000, process = p }
lab.check(not ok and bc.code == lab.IRQL_NOT_LESS_OR_EQUAL, "the inclusive-end bug check")
lab.log(("6.2 bug-checked: %s, IRQL argument 0x%X"):format(bc.name, bc.params[2]))

-- 6. Intervals on a fresh Windows 10 machine: the timer HAL's default is
--    10000 (100 ns units: 1 ms; 39063 before 10.0); sets need SeSystemProfilePrivilege and are
--    clamped by the HAL.
local w = lab.machine{}
local admin = w:process{ privileges = { "SeSystemProfilePrivilege" } }
lab.check(P.query_interval(admin, lab.ProfileTime) == 10000, "default ProfileTime interval")
admin:NtSetIntervalProfile(1, lab.ProfileTime)
lab.log("ProfileTime after setting 1: " .. P.query_interval(admin, lab.ProfileTime))

-- 7. The kernel's calls into the HAL are logged, one row per processor.
for _, row in ipairs(w:hal_log()) do
  lab.log(("hal=%s cpu=%d call=%s source=%d interval=%s"):format(
    tostring(row.hal), row.cpu, row.call, row.source, tostring(row.interval)))
end

-- 8. A simulated run. The workload executes on the simulated
--    processors; the apic HAL programmed the timer, so ProfileTime
--    interrupts arrive every interval and the kernel counts them in the
--    profile. The run also returns the ground truth.
local app = w:process{ name = "worker" }
local pr = P.create_and_start(app, { base = 0x400000, size = 0x2000, bucket = 12 }) -- two 4 KB buckets
admin:NtSetIntervalProfile(10000, lab.ProfileTime)                                  -- 1 ms
local r = w:run{ duration_us = 1000000, workload = { process = app, functions = {
  { name = "parse",   base = 0x400000, size = 0x1000, weight = 1 },
  { name = "compute", base = 0x401000, size = 0x1000, weight = 3 },
} } }
local b = P.buckets(pr)
local truth = r.truth.compute.instructions / (r.truth.compute.instructions + r.truth.parse.instructions)
lab.log(("1 s at 1 ms: %d samples; compute has %.1f%% of them and %.1f%% of the instructions"):format(
  b[1] + b[2], 100 * b[2] / (b[1] + b[2]), 100 * truth))
lab.check(math.abs(b[2] / (b[1] + b[2]) - truth) < 0.05, "the sampled profile is close to the truth")

-- Next: scenarios/ holds one scenario per documented behaviour, and
-- docs/scenario-api.md is the whole API.
