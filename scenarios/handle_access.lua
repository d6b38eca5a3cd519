-- A profile handle without the access a service needs (the model's statuses
-- in docs/reference/start-stop.md#ntstartprofile; conformance item 47).
-- NtStartProfile and NtStopProfile reference the handle for
-- PROFILE_CONTROL (0x1); a handle granting less is STATUS_ACCESS_DENIED,
-- checked after the handle's existence and its object type. The lab's
-- p:duplicate_handle(h, access) makes a second handle to the same profile
-- with exactly that access (as NtDuplicateObject with a DesiredAccess
-- would); the profile lives until its last handle is closed.
local lab = require "proflab"
local A = require "assert"
local P = require "profile"

local m = lab.machine{ version = "10.0.19041", cpus = 1 }
local p = m:process{}
local pr = P.create(p, { base = 0x400000, size = 0x40 })
A.expect_status(pr.status, lab.STATUS_SUCCESS, "create")

local weak = p:duplicate_handle(pr.handle, lab.SYNCHRONIZE)
A.expect_status(p:NtStartProfile(weak), lab.STATUS_ACCESS_DENIED, "47 start through a SYNCHRONIZE-only handle")
A.expect_status(p:NtStopProfile(weak), lab.STATUS_ACCESS_DENIED, "47 stop through it (access is checked before the started state)")

local control = p:duplicate_handle(pr.handle, lab.PROFILE_CONTROL)
A.expect_status(p:NtStartProfile(control), lab.STATUS_SUCCESS, "PROFILE_CONTROL alone is enough to start")
A.expect_status(P.close(pr), lab.STATUS_SUCCESS, "close the handle create returned")
A.expect_status(p:NtStopProfile(control), lab.STATUS_SUCCESS, "the profile lives on through the duplicate")
A.expect_status(p:NtClose(weak), lab.STATUS_SUCCESS, "close the weak handle")
A.expect_status(p:NtClose(control), lab.STATUS_SUCCESS, "closing the last handle deletes the profile")

-- a handle in another process's table
local q = m:process{}
local pr2 = P.create(p, { base = 0x400000, size = 0x40 })
local in_q = p:duplicate_handle(pr2.handle, 0, q)
A.expect_status(q:NtStartProfile(in_q), lab.STATUS_ACCESS_DENIED, "47 q's handle grants nothing")
A.expect_error(function() p:duplicate_handle(0x7FF0, 1) end, "has no handle", "duplicating a handle p does not have is the scenario's error")
