-- A workload from a TOML file: profile a server's image by time and by
-- cache misses, and see the kernel's ISR and DPC time in the NT Kernel
-- Logger's sampled-profile events.
--
--   bin/proflab run examples/workload-file.lua --out out/
--   go tool pprof -top out/profile-m1-pid12-h4-ProfileTime.pb.gz         # by time, in milliseconds
--   go tool pprof -top out/profile-m1-pid12-h8-ProfileCacheMisses.pb.gz  # by cache misses, in events
-- (two profiles of different sources have different units: pprof will not
-- merge them)
local lab = require "proflab"
local P = require "profile"
local S = require "sampling"

local m = lab.machine{ cpus = 2 }
local server = m:process{ name = "server", privileges = { "SeSystemProfilePrivilege" } } -- the workload's process, by name
local image = { base = lab.u64("0x140000000"), size = 0x4000 }

local by_time = P.create_and_start(server, { base = image.base, size = image.size, bucket = 8 })
local by_miss = P.create_and_start(server, { base = image.base, size = image.size, bucket = 8, source = lab.ProfileCacheMisses })
server:NtSetIntervalProfile(10000, lab.ProfileTime)      -- 1 ms
server:NtSetIntervalProfile(4096, lab.ProfileCacheMisses)
local s = m:start_kernel_logger{ profile = true }

local r = m:run{ duration_us = 500000, workload = "workloads/server.toml" } -- relative to this file
s:stop()

local fns = {
  { name = "parse_request", base = image.base + 0x1000, size = 0x800 },
  { name = "hash_block", base = image.base + 0x2000, size = 0x400 },
  { name = "copy_payload", base = image.base + 0x3000, size = 0x400 },
}
local t, c = S.by_function(P.buckets(by_time), image.base, 8, fns), S.by_function(P.buckets(by_miss), image.base, 8, fns)
local rows = {}
for _, f in ipairs(fns) do
  rows[#rows + 1] = { f.name, t[f.name], c[f.name], r.truth[f.name].instructions }
end
S.table("server.exe, 0.5 s on 2 processors", { "function", "time samples", "cache-miss samples", "instructions" }, rows)

local isr, dpc = 0, 0
for _, e in ipairs(s:events()) do
  if e.ExecutingIsr then isr = isr + 1 end
  if e.ExecutingDpc then dpc = dpc + 1 end
end
lab.log(("sampled-profile events: %d, of them in an ISR %d, in a DPC %d"):format(#s:events(), isr, dpc))

lab.check(c.copy_payload > 0.95 * (c.parse_request + c.hash_block + c.copy_payload), "only copy_payload misses the cache")
lab.check(t.copy_payload > t.hash_block, "copy_payload's CPI of 3 outweighs hash_block's larger share of instructions in time")
lab.check(isr > 0 and dpc > 0, "the driver's ISR and DPC time shows in the events")
