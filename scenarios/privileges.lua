-- Privileges and integrity (docs/reference/profile-objects.md, intervals.md;
-- conformance items 34–39, 75–76). Profiling user space globally needs
-- SeSystemProfilePrivilege; profiling kernel space or your own process
-- does not. From 6.3 a low-integrity caller may not reach kernel space.
-- From 6.2 NtSetIntervalProfile needs SeSystemProfilePrivilege.
local lab = require "proflab"
local A = require "assert"
local P = require "profile"

local KBASE = lab.u64("0xFFFFF80000000000")

local function try(version, proc_spec, spec)
  local m = lab.machine{ version = version }
  local p = m:process(proc_spec)
  spec.check = false -- the status is the result: failures are expected
  return P.create(p, spec).status
end

local priv = { privileges = { "SeSystemProfilePrivilege" } }
local low = { integrity = "low" }

A.expect_status(try("10.0.19041", {}, { process = false, base = 0x400000, size = 0x100 }), lab.STATUS_PRIVILEGE_NOT_HELD, "34 global user range, no privilege")
A.expect_status(try("10.0.19041", priv, { process = false, base = 0x400000, size = 0x100 }), lab.STATUS_SUCCESS, "35 with SeSystemProfilePrivilege")
A.expect_status(try("10.0.19041", {}, { process = false, base = KBASE, size = 0x100 }), lab.STATUS_SUCCESS, "36 global kernel range, medium integrity")
A.expect_status(try("6.3", low, { base = KBASE, size = 0x100 }), lab.STATUS_ACCESS_DENIED, "37 6.3 low integrity, kernel range, own process")
A.expect_status(try("6.2", low, { base = KBASE, size = 0x100 }), lab.STATUS_SUCCESS, "38 6.2 low integrity, kernel range")
A.expect_status(try("10.0.19041", low, { base = 0x400000, size = 0x100 }), lab.STATUS_SUCCESS, "39 low integrity, own user range")
A.expect_status(try("10.0.19041", { privileges = { "SeProfileSingleProcessPrivilege" } }, { process = false, base = 0x400000, size = 0x100 }),
  lab.STATUS_PRIVILEGE_NOT_HELD, "SeProfileSingleProcessPrivilege is not what global profiling needs")

for _, c in ipairs({ { "6.1", lab.STATUS_SUCCESS }, { "6.2", lab.STATUS_PRIVILEGE_NOT_HELD }, { "10.0.19041", lab.STATUS_PRIVILEGE_NOT_HELD } }) do
  local m = lab.machine{ version = c[1] }
  local p = m:process{}
  A.expect_status(p:NtSetIntervalProfile(5000, lab.ProfileTime), c[2], "75/76 unprivileged set on " .. c[1])
  if c[2] ~= lab.STATUS_SUCCESS then
    -- the timer HAL's default: 39063 before 10.0, 10000 on 10.0 (docs/reference/hal.md)
    A.expect_eq(P.query_interval(p, lab.ProfileTime), c[1] == "6.2" and 39063 or 10000, "75 the interval did not change on " .. c[1])
  end
end

-- a kernel-mode caller needs no privilege
local m = lab.machine{}
local k = m:kernel{ cpu = 0 }
A.expect_status(k:NtSetIntervalProfile(5000, lab.ProfileTime), lab.STATUS_SUCCESS, "kernel-mode set")
