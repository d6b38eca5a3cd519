-- How long must one sample prog.pb.gz for a given error? One run profiles
-- the real program's image by ProfileTime at lab.params.interval (100 ns
-- units) for lab.params.duration_us on Windows 10, and records the
-- samples, the total-variation distance from the truth, the distance
-- sampling error alone gives on average, and the test's p-value. Swept by
-- interval.toml; alone: proflab run interval.lua --set interval=1221
local lab, P, S, Prog = require "proflab", require "profile", require "sampling", require "program"
local interval = lab.params.interval or 10000
local m = lab.machine{ version = "10.0", cpus = 1 }
local img = Prog.image(m:images{ workload = "prog.pb.gz" }) -- the image holding its samples
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local pr = P.create_and_start(p, { process = false, base = img.base, size = img.size, bucket = 4 })
lab.check(p:NtSetIntervalProfile(interval, lab.ProfileTime) == lab.STATUS_SUCCESS, "the interval is set")
local res = m:run{ duration_us = lab.params.duration_us or 1000000, workload = "prog.pb.gz" }
local a = S.accuracy(P.buckets(pr), img.base, 4, res, "cycles")
lab.check(a.samples > 0, "the profile has samples")
lab.log(("%s: %d samples, TV %s, %s"):format(a.verdict, a.samples, a.tv and ("%.4f"):format(a.tv) or "-", S.p_text(a)))
if a.tv then lab.record{ samples = a.samples, tv_distance = a.tv, expected_tv = a.expected, p_value = a.p } end
