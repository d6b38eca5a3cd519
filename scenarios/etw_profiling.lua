-- ETW profiling controls of the NT Kernel Logger (docs/reference/tracing.md;
-- conformance items 98, 100–104, 106). The logger's PERFINFO_GROUPMASK
-- decides what is traced: PERF_PROFILE (Masks[1] bit 0x2) gives 0x0F2E
-- sampled-profile events, PERF_PMC_PROFILE (bit 0x400) 0x0F2F events for
-- the sources chosen with TraceProfileSourceConfigInfo; enabling either
-- needs SeSystemProfilePrivilege. The NT Kernel Logger's TRACEHANDLE has
-- logger id 0xFFFF.
local lab = require "proflab"
local A = require "assert"

local KL = 0xFFFF
local m = lab.machine{ version = "10.0.19041", cpus = 2 }
local user = m:process{ name = "user" }
local admin = m:process{ name = "admin", privileges = { "SeSystemProfilePrivilege" } }

-- an EVENT_TRACE_* structure: class, TRACEHANDLE at 8, then ULONGs
local function trace_struct(p, class, handle, vals)
  local buf = p:alloc(0x100)
  p:write_u32(buf, class)
  p:write_u64(buf + 8, handle)
  for i, v in ipairs(vals) do p:write_u32(buf + 0x10 + 4 * (i - 1), v) end
  return buf, 0x10 + 4 * #vals
end
local function set(p, class, handle, vals)
  local buf, len = trace_struct(p, class, handle, vals)
  return p:NtSetSystemInformation(lab.SystemPerformanceTraceInformation, buf, len)
end
local function masks(m1) return { 0, m1, 0, 0, 0, 0, 0, 0 } end

-- 104: the sub-class dword itself
A.expect_status(user:NtSetSystemInformation(lab.SystemPerformanceTraceInformation, user:alloc(4), 3), lab.STATUS_INVALID_PARAMETER, "104 shorter than 4 bytes")
A.expect_status(set(user, 0x40, KL, {}), lab.STATUS_NOT_IMPLEMENTED, "104 unknown EVENT_TRACE_INFORMATION_CLASS")

-- 102: no logger yet
A.expect_status(set(admin, lab.EventTraceProfileCounterListInformation, KL, { lab.ProfileTotalIssues }), lab.STATUS_WMI_INSTANCE_NOT_FOUND, "102 inactive logger")

local s = m:start_kernel_logger{ profile = false }

-- 98: PERF_PROFILE through the group mask needs the privilege
A.expect_status(set(user, lab.EventTraceGroupMaskInformation, KL, masks(0x2)), lab.STATUS_PRIVILEGE_NOT_HELD, "98 PERF_PROFILE without the privilege")
A.expect_status(set(admin, lab.EventTraceGroupMaskInformation, KL, masks(0x2)), lab.STATUS_SUCCESS, "PERF_PROFILE with it")
m:interrupt{ cpu = 1, ip = 0x401000, process = user }

-- 106 and the PMC profile: choose a source, enable PERF_PMC_PROFILE
local srcs = admin:alloc(0x20)
A.expect_win32(admin:TraceSetInformation(KL, lab.TraceProfileSourceConfigInfo, srcs, 5 * 4), lab.ERROR_INCORRECT_SIZE, "106 five sources")
A.expect_win32(admin:TraceSetInformation(KL, lab.TraceProfileSourceConfigInfo, srcs, 0), lab.ERROR_INVALID_PARAMETER, "106 zero sources")
admin:write_u32(srcs, lab.ProfileCacheMisses)
A.expect_win32(admin:TraceSetInformation(KL, lab.TraceProfileSourceConfigInfo, srcs, 4), lab.ERROR_SUCCESS, "one PMC source")
A.expect_status(set(admin, lab.EventTraceGroupMaskInformation, KL, masks(0x402)), lab.STATUS_SUCCESS, "PERF_PROFILING (0x402)")
m:interrupt{ cpu = 0, ip = 0x402000, process = user, source = lab.ProfileCacheMisses }

-- 100/101: the counter list
A.expect_status(set(admin, lab.EventTraceProfileCounterListInformation, KL, {}), lab.STATUS_INVALID_PARAMETER, "100 zero counters")
A.expect_status(set(admin, lab.EventTraceProfileCounterListInformation, KL, { 2, 6, 10, 11, 19 }), lab.STATUS_INVALID_PARAMETER, "100 five counters (from 1903 the limit is the HALs' count: pmu and pebs have 4)")
A.expect_status(set(admin, lab.EventTraceProfileCounterListInformation, KL, { 2, 6 }), lab.STATUS_SUCCESS, "two counters")
A.expect_status(set(admin, lab.EventTraceProfileCounterListInformation, KL, { 2 }), lab.STATUS_WMI_ALREADY_ENABLED, "101 set twice")

-- 103: PEBS tracing takes only the context-switch hook
A.expect_status(set(admin, lab.EventTracePebsTracingInformation, KL, { 0x0F2E }), lab.STATUS_INVALID_PARAMETER, "103 another hook")
A.expect_status(set(user, lab.EventTracePebsTracingInformation, KL, { 0x0524 }), lab.STATUS_PRIVILEGE_NOT_HELD, "103 without the privilege")
A.expect_status(set(admin, lab.EventTracePebsTracingInformation, KL, { lab.PERFINFO_LOG_TYPE_CONTEXTSWAP }), lab.STATUS_SUCCESS, "PEBS index on context switches")

-- the group mask reads back through TraceQueryInformation class 4
local out = user:alloc(32)
A.expect_win32(user:TraceQueryInformation(KL, lab.TraceSystemTraceEnableFlagsInfo, out, 32, nil), lab.ERROR_SUCCESS, "class 4 query")
A.expect_eq(user:read_u32(out + 4), 0x402, "Masks[1] is PERF_PROFILING")

s:stop()
local ev = s:events()
A.expect_eq(#ev, 2, "one event of each kind")
A.expect_eq({ ev[1].hook, ev[1].InstructionPointer, ev[1].cpu }, { 0x0F2E, 0x401000, 1 }, "sampled profile")
A.expect_eq({ ev[2].hook, ev[2].InstructionPointer, ev[2].ProfileSource, ev[2].ThreadId }, { 0x0F2F, 0x402000, lab.ProfileCacheMisses, user:thread():id() }, "PMC interrupt")
lab.log("hook    cpu  fields")
for _, e in ipairs(ev) do
  lab.log(("0x%04X  %d    ip=0x%X tid=%d%s"):format(e.hook, e.cpu, e.InstructionPointer, e.ThreadId,
    e.ProfileSource and (" source=" .. e.ProfileSource) or ""))
end
