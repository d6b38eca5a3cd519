-- Tracing switched on between a set and its re-query
-- (docs/reference/intervals.md#ntsetintervalprofile; conformance items 83–85). NtSetIntervalProfile asks the HAL for the old
-- interval only if tracing is on, sets the new one, queries it back, and
-- logs a 0x0F48 event if tracing is on by then. Turned on in the middle,
-- the event is still logged, with OldInterval 0. m:on_hal_call(fn) runs fn
-- inside each kernel call into a HAL, before the HAL acts: here it starts
-- the NT Kernel Logger during the set.
local lab = require "proflab"
local A = require "assert"

local m = lab.machine{ version = "10.0.19041", cpus = 2 }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local session, calls = nil, {}
m:on_hal_call(function(call)
  calls[#calls + 1] = ("%s %s source %d on %d processors"):format(call.call, call.hal, call.source, #call.cpus)
  if call.call == "set" and not session then
    session = m:start_kernel_logger{ profile = true } -- its own HAL calls do not re-enter the hook
  end
end)
A.expect_status(p:NtSetIntervalProfile(20000, lab.ProfileTime), lab.STATUS_SUCCESS, "set ProfileTime")
m:on_hal_call(nil)

local sets = {}
for _, e in ipairs(session:events()) do
  if e.hook == lab.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL then sets[#sets + 1] = e end
end
A.expect_eq(#sets, 1, "84 one 0x0F48 event")
A.expect_eq({ sets[1].Source, sets[1].NewInterval, sets[1].OldInterval }, { 0, 20000, 0 }, "84 OldInterval is 0: tracing was off before the set")
A.expect_eq(calls, { "set apic source 0 on 2 processors", "query apic source 0 on 1 processors" }, "the hook saw the set and its re-query")

-- 83: tracing on before and after: Old is the interval before the set
A.expect_status(p:NtSetIntervalProfile(30000, lab.ProfileTime), lab.STATUS_SUCCESS, "set again, tracing on")
local last = session:events()[#session:events()]
A.expect_eq({ last.NewInterval, last.OldInterval }, { 30000, 20000 }, "83 {New, Old} with tracing on throughout")
session:stop()
for _, l in ipairs(calls) do lab.log(l) end
