-- A periodic loop aliasing with the timer (docs/architecture.md, "Workloads and ground
-- truth": periodic loops; docs/reference/intervals.md for ProfileTime in 100 ns
-- units). At 3000 MHz and interval 10000 (1 ms) the timer fires every
-- 3,000,000 cycles. A loop of 1000 one-cycle instructions runs exactly
-- 3000 times per tick, so every sample hits the same instruction: the
-- profile shows one hot bucket in a loop whose truth is flat. A loop of
-- 997 instructions drifts by one slot per tick and samples it evenly.
local lab = require "proflab"
local P = require "profile"
local S = require "sampling"

local base = 0x50000
local rows, result = {}, {}
for _, n in ipairs({ 1000, 997, 750, 1024 }) do
  local m = lab.machine{ cpus = 1, hal = { "apic" } }
  local p = m:process{ name = "app", privileges = { "SeSystemProfilePrivilege" } }
  local size = n * 4
  local pr = P.create_and_start(p, { base = base, size = size, bucket = 4 })
  p:NtSetIntervalProfile(10000, lab.ProfileTime)
  m:run{ duration_us = 1000000, workload = { process = p, functions = { { name = "loop", base = base, size = size, weight = 1, loop_instructions = n } } } }
  local counts = P.buckets(pr)
  local hit, top, total = 0, 0, 0
  for _, c in ipairs(counts) do
    if c > 0 then hit = hit + 1 end
    if c > top then top = c end
    total = total + c
  end
  result[n] = { hit = hit, top = top / total, buckets = #counts }
  rows[#rows + 1] = { n, 3000000 % n, #counts, hit, S.pct(top / total), S.pct(1 / #counts) }
end
S.table("a loop of n instructions under a 1 ms timer (1 s, 1000 samples)",
  { "loop n", "3e6 mod n", "buckets", "buckets hit", "top bucket", "truth per bucket" }, rows)

lab.check(result[1000].hit == 1, "loop of 1000: every sample in one bucket (aliasing)")
lab.check(result[750].hit == 1, "loop of 750 (divides 3e6): aliasing too")
lab.check(result[997].hit > 0.9 * result[997].buckets, "loop of 997: samples spread over the loop")
lab.check(result[1024].hit > 1, "loop of 1024: the samples walk through the loop")
lab.record{ alias_top_share = result[1000].top, drift_top_share = result[997].top }
