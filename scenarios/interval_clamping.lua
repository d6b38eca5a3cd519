-- Interval clamping by the HAL and by the cache errata (docs/reference/hal.md:
-- the 10.0 apic HAL clamps ProfileTime to [1221, 1000000]; docs/reference/intervals.md: with
-- cache-errata support the kernel keeps ProfileTime at most at the errata
-- interval). The effective interval is what NtQueryIntervalProfile reports
-- and what the timer really does: the interrupts counted in 100 ms match it.
local lab = require "proflab"
local P = require "profile"
local S = require "sampling"

local base = 0x40000
local fns = { { name = "work", base = base, size = 0x1000, weight = 1 } }
local rows = {}

local function case(label, machine_args, asked)
  machine_args.cpus, machine_args.hal = 1, { "apic" }
  local m = lab.machine(machine_args)
  local p = m:process{ name = "app", privileges = { "SeSystemProfilePrivilege" } }
  P.create_and_start(p, { base = base, size = 0x1000, bucket = 12 })
  p:NtSetIntervalProfile(asked, lab.ProfileTime)
  local eff = P.query_interval(p, lab.ProfileTime)
  local res = m:run{ duration_us = 100000, workload = { process = p, functions = fns } }
  local got = res.interrupts.ProfileTime or 0
  local want = math.floor(1000000 / eff)
  rows[#rows + 1] = { label, asked, eff, got, want }
  lab.check(math.abs(got - want) <= 1, ("%s: %d interrupts in 100 ms, expected %d"):format(label, got, want))
  return eff
end

lab.check(case("below the minimum", {}, 100) == 1221, "the HAL raises 100 to its minimum 1221")
lab.check(case("within bounds", {}, 5000) == 5000, "an interval within the bounds is kept")
lab.check(case("above the maximum", {}, 20000000) == 1000000, "the 10.0 HAL lowers 20000000 to its maximum 1000000")
lab.check(case("cache errata 2500", { cache_errata_interval = 2500 }, 39063) == 2500, "the errata clamp keeps ProfileTime at 2500")
lab.check(case("errata, faster asked", { cache_errata_interval = 2500 }, 1500) == 1500, "a faster interval passes the errata clamp")
S.table("ProfileTime intervals (100 ns units) and the interrupts of 100 ms", { "case", "asked", "effective", "interrupts", "expected" }, rows)
