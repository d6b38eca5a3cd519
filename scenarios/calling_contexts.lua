-- Calling contexts (docs/architecture.md#workloads-and-ground-truth): a function
-- reached through several stacks. lex runs when parse calls it and when
-- main calls it directly, 3:1; main also works on its own. The engine
-- draws stacks by weight, runs their leaf, and keeps the truth per stack:
-- a function's flat truth is its own execution in every stack, its
-- inclusive truth adds every stack it is a caller in. The profile's
-- buckets see addresses only; m:run's stacks say how many of the
-- interrupts each stack took.
local lab = require "proflab"
local P = require "profile"

local m = lab.machine{ cpus = 1, hal = { "apic" }, seed = 11 }
local p = m:process{ name = "compiler", privileges = { "SeSystemProfilePrivilege" } }
local pr = P.create_and_start(p, { base = 0x10000, size = 0xC00, bucket = 10 })
p:NtSetIntervalProfile(1221, lab.ProfileTime)

local res = m:run{ duration_us = 1000000, workload = {
  image = { { name = "cc.exe", base = 0x10000, functions = {
    { name = "main", offset = 0x000, size = 0x400 },
    { name = "parse", offset = 0x400, size = 0x400 },
    { name = "lex", offset = 0x800, size = 0x400 },
  } } },
  process = { { name = "compiler", stacks = {
    { frames = { "lex", "parse", "main" }, weight = 3 },
    { frames = { "lex", "main" }, weight = 1 },
    { frames = { "main" }, weight = 4 },
  } } },
} }

local total = res.truth.lex.instructions + res.truth.main.instructions
print(("%-22s %8s %8s"):format("stack", "truth", "hits"))
local hits = 0
for _, s in ipairs(res.stacks) do
  hits = hits + s.hits.ProfileTime
end
for _, s in ipairs(res.stacks) do
  print(("%-22s %7.1f%% %7.1f%%"):format(table.concat(s.frames, " <- "), 100 * s.instructions / total, 100 * s.hits.ProfileTime / hits))
end
print(("%-8s flat %5.1f%%  inclusive %5.1f%%"):format("main", 100 * res.truth.main.instructions / total, 100 * res.truth.main.inclusive.instructions / total))
print(("%-8s flat %5.1f%%  inclusive %5.1f%%"):format("parse", 100 * res.truth.parse.instructions / total, 100 * res.truth.parse.inclusive.instructions / total))
print(("%-8s flat %5.1f%%  inclusive %5.1f%%"):format("lex", 100 * res.truth.lex.instructions / total, 100 * res.truth.lex.inclusive.instructions / total))

local b = P.buckets(pr)
lab.check(b[3] == res.stacks[1].hits.ProfileTime + res.stacks[2].hits.ProfileTime,
  "lex's bucket counts what its two stacks took")
lab.check(res.truth.parse.instructions == 0 and res.truth.parse.inclusive.instructions == res.stacks[1].instructions,
  "parse only calls: no flat time, its stack's inclusive time")
lab.check(res.truth.main.inclusive.instructions == total, "main is on every stack: all the time is inclusive in it")
lab.check(math.abs(res.stacks[1].instructions / total - 3 / 8) < 0.01, "lex <- parse <- main runs 3/8 of the time")
