-- Buckets and lists (docs/reference/interrupt.md; conformance items 58,
-- 60–62, 65–68). The counter index is (ip − RangeBase) >> log2(bucket); the
-- interrupt walks the current process's list and the global list; one
-- interrupt can count in several profiles.
local lab = require "proflab"
local A = require "assert"
local P = require "profile"

local m = lab.machine{ version = "10.0.19041", cpus = 2 }
local app = m:process{ name = "app", privileges = { "SeSystemProfilePrivilege" } }
local other = m:process{ name = "other" }
local BASE = 0x400000

local own = P.create_and_start(app, { base = BASE, size = 0x40, bucket = 4 })   -- 16-byte buckets
local own32 = P.create_and_start(app, { base = BASE, size = 0x40, bucket = 5 }) -- 32-byte buckets
local global = P.create_and_start(app, { process = false, base = BASE, size = 0x40, bucket = 4 })

m:interrupt{ cpu = 0, ip = BASE, process = app }            -- 60: counter 0 of all three
m:interrupt{ cpu = 1, ip = BASE + 0x25, process = app }     -- 65: counter 2 (16-byte), 1 (32-byte)
m:interrupt{ cpu = 0, ip = BASE + 0x3F, process = app }     -- 61: the last counter
m:interrupt{ cpu = 0, ip = BASE - 1, process = app }        -- 62: nothing
m:interrupt{ cpu = 0, ip = BASE + 0x10, process = other }   -- 66/67: global only
m:interrupt{ cpu = 1, ip = BASE + 0x10 }                    -- idle context: global only
m:interrupt{ cpu = 0, ip = BASE, process = app, source = lab.ProfileTotalIssues } -- 58: other source

A.expect_eq(P.buckets(own), { 1, 0, 1, 1 }, "16-byte buckets of app's profile")
A.expect_eq(P.buckets(own32), { 1, 2 }, "32-byte buckets of app's second profile")
A.expect_eq(P.buckets(global), { 1, 2, 1, 1 }, "the global profile counts every process and idle")

lab.log("bucket   own16  own32  global")
local g, o, o32 = P.buckets(global), P.buckets(own), P.buckets(own32)
for i = 1, 4 do
  lab.log(("%d        %5d  %5s  %6d"):format(i - 1, o[i], tostring(o32[math.floor((i - 1) / 2) + 1]), g[i]))
end

-- 57: stop keeps the counters and stops counting
A.expect_status(P.stop(own), lab.STATUS_SUCCESS, "stop")
m:interrupt{ cpu = 0, ip = BASE, process = app }
A.expect_eq(P.buckets(own), { 1, 0, 1, 1 }, "57 counters survive the stop, unchanged")
