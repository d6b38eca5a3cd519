-- Workloads that cannot exist. An x86 machine's addresses are 32 bits, so
-- code at 0x140001000 (an x64 image's usual place) is not on it; an x64
-- machine's addresses are canonical, so nothing lies between user space's
-- end (0x7FFFFFFFFFFF) and system space (0xFFFF800000000000). m:run
-- refuses such a workload with an error naming the field, instead of
-- running code that could not be there.
local lab = require "proflab"
local A = require "assert"

local function run(arch, base)
  local m = lab.machine{ version = "10.0.19041", arch = arch, cpus = 1 }
  local p = m:process{}
  return m:run{ duration_us = 1000, workload = { process = p, functions = { { name = "main", base = base, size = 0x100, weight = 1 } } } }
end

A.expect_error(function() run("x86", 0x140001000) end, "functions[1].base: 0x140001000", "an x86 machine has no code above 4 GB")
A.expect_error(function() run("x64", 0x800000000000) end, "not in the x64 machine's address space", "a non-canonical x64 address")
A.expect_eq(run("x64", 0x140001000).truth.main.instructions > 0, true, "the same workload runs on x64")
A.expect_eq(run("x86", 0x401000).truth.main.instructions > 0, true, "and at 0x401000 on x86")
