-- Sampled-profile events (docs/reference/tracing.md#the-profile-events;
-- conformance items 69, 83, 85, 99). Starting the NT Kernel Logger with
-- profile events starts ProfileTime on every processor (the
-- sampled-profile callback object, 6.2+); each ProfileTime interrupt then
-- emits hook 0x0F2E with the interrupted IP, thread and ISR/DPC flags,
-- with no range or affinity test. A set of the interval while tracing
-- emits 0x0F48 with the old and new values.
local lab = require "proflab"
local A = require "assert"

local m = lab.machine{ version = "10.0.19041", cpus = 2 }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local n = #m:hal_log()
local s = m:start_kernel_logger{ profile = true }
local starts = {}
for i, r in ipairs(m:hal_log()) do
  if i > n and r.call == "start" then starts[#starts + 1] = r.cpu .. ":" .. r.source end
end
A.expect_eq(starts, { "0:0", "1:0" }, "the logger starts ProfileTime on every processor")

m:interrupt{ cpu = 1, ip = 0x401234, process = p }
m:interrupt{ cpu = 0, ip = lab.u64("0xFFFFF80000123456"), isr = true }
m:interrupt{ cpu = 0, ip = 0x401000, process = p, dpc = true, mode = "kernel" }
m:interrupt{ cpu = 0, ip = 0x401000, process = p, source = lab.ProfileTotalIssues } -- not a ProfileTime interrupt

A.expect_error(function() m:start_kernel_logger{ profile = true } end, "", "there is one NT Kernel Logger")

A.expect_status(p:NtSetIntervalProfile(20000, lab.ProfileTime), lab.STATUS_SUCCESS, "set while tracing")
s:stop()
A.expect_status(p:NtSetIntervalProfile(30000, lab.ProfileTime), lab.STATUS_SUCCESS, "set after the logger stopped")
m:interrupt{ cpu = 1, ip = 0x401234, process = p }

local ev = s:events()
local samples, sets = {}, {}
for _, e in ipairs(ev) do
  if e.hook == lab.PERFINFO_LOG_TYPE_SAMPLED_PROFILE then samples[#samples + 1] = e end
  if e.hook == lab.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL then sets[#sets + 1] = e end
end
A.expect_eq(#samples, 3, "99 one 0x0F2E per ProfileTime interrupt while tracing")
A.expect_eq({ samples[1].cpu, samples[1].InstructionPointer, samples[1].ThreadId, samples[1].ExecutingIsr, samples[1].ExecutingDpc },
  { 1, 0x401234, p:thread():id(), false, false }, "99 first sample")
A.expect_eq(samples[2].ThreadId, 0, "the idle context is thread 0")
A.expect_eq(tostring(samples[2].InstructionPointer), "0xFFFFF80000123456", "a kernel IP comes back exact")
A.expect_eq({ samples[2].ExecutingIsr, samples[3].ExecutingDpc }, { true, true }, "ISR and DPC flags")
A.expect_eq(#sets, 1, "83/85 one 0x0F48, only while tracing")
A.expect_eq({ sets[1].Source, sets[1].NewInterval, sets[1].OldInterval }, { 0, 20000, 10000 }, "83 {Source, New, Old}")

lab.log("hook    cpu  time  fields")
for _, e in ipairs(ev) do
  if e.hook == 0x0F2E then
    lab.log(("0x%04X  %d    %d     ip=%s tid=%d isr=%s dpc=%s"):format(e.hook, e.cpu, e.time, tostring(e.InstructionPointer), e.ThreadId, tostring(e.ExecutingIsr), tostring(e.ExecutingDpc)))
  else
    lab.log(("0x%04X  %d    %d     source=%d new=%d old=%d"):format(e.hook, e.cpu, e.time, e.Source, e.NewInterval, e.OldInterval))
  end
end
