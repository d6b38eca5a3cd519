package kernel

import (
	"encoding/binary"

	"github.com/proflab/proflab/kernel/nt"
)

// The SystemPerformanceTraceInformation (0x1F) sub-classes for the NT
// Kernel Logger's profiling
// (docs/reference/tracing.md#systemperformancetraceinformation-0x1f). Each
// reads its EVENT_TRACE_*
// structure from the caller's buffer; TraceHandle's low 16 bits name the
// logger, and only the NT Kernel Logger (0xFFFF) exists in the model.

// etwHeader is {EVENT_TRACE_INFORMATION_CLASS; TRACEHANDLE @8}: the
// header of the group-mask, system-event and counter-list structures.
const etwHeader = 0x10

// groupMaskSize is EVENT_TRACE_GROUPMASK_INFORMATION's size.
const groupMaskSize = 0x30

// logger returns the running NT Kernel Logger named by a TRACEHANDLE,
// or nil.
func (m *Machine) loggerFor(handle uint64) *TraceSession {
	if handle&0xFFFF != KernelLoggerHandle || m.logger == nil {
		return nil
	}
	return m.logger
}

// etwStruct builds an EVENT_TRACE_* structure as ADVAPI32 does: the
// class, the TRACEHANDLE at 8, then the given ULONGs.
func etwStruct(class uint32, handle uint64, vals []uint32) []byte {
	b := make([]byte, etwHeader+4*len(vals))
	binary.LittleEndian.PutUint32(b, class)
	binary.LittleEndian.PutUint64(b[8:], handle)
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[etwHeader+4*i:], v)
	}
	return b
}

// queryGroupMask is EventTraceGroupMaskInformation for query (6.0+): b is
// the caller's structure; the masks are returned.
func (m *Machine) queryGroupMask(b []byte) ([8]uint32, Status) {
	if len(b) != groupMaskSize {
		return [8]uint32{}, StatusInfoLengthMismatch
	}
	s := m.loggerFor(binary.LittleEndian.Uint64(b[8:]))
	if s == nil {
		return [8]uint32{}, nt.StatusWMIInstanceNotFound
	}
	return s.masks, StatusSuccess
}

// setGroupMask is EventTraceGroupMaskInformation for set (6.2+):
// enabling PERF_PROFILE or PERF_PMC_PROFILE from user mode needs
// SeSystemProfilePrivilege.
func (t *Thread) setGroupMask(b []byte) (Status, error) {
	if len(b) != groupMaskSize {
		return StatusInfoLengthMismatch, nil
	}
	s := t.proc.m.loggerFor(binary.LittleEndian.Uint64(b[8:]))
	if s == nil {
		return nt.StatusWMIInstanceNotFound, nil
	}
	var masks [8]uint32
	copy(masks[:], ulongs(b[etwHeader:]))
	if masks[1]&(maskProfile|maskPMCProfile) != 0 && !t.privileged() {
		return StatusPrivilegeNotHeld, nil
	}
	return StatusSuccess, s.setMasks(masks)
}

// privileged is SeSinglePrivilegeCheck(SeSystemProfilePrivilege) with the
// caller's previous mode.
func (t *Thread) privileged() bool {
	return t.mode == KernelMode || t.proc.token.HasPrivilege(nt.SeSystemProfilePrivilege)
}

// elements checks an ETW array structure: a header, then whole ULONGs.
func elements(b []byte) (int, bool) {
	if len(b) < etwHeader || (len(b)-etwHeader)%4 != 0 {
		return 0, false
	}
	return (len(b) - etwHeader) / 4, true
}

func ulongs(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// setPEBSTracing is EventTracePebsTracingInformation (6.2+): no hook, or
// exactly PERFINFO_LOG_TYPE_CONTEXTSWAP; from user mode it needs
// SeSystemProfilePrivilege.
func (t *Thread) setPEBSTracing(b []byte) Status {
	n, ok := elements(b)
	if !ok || n > 1 || (n == 1 && ulongs(b[etwHeader:])[0] != uint32(nt.PERFINFO_LOG_TYPE_CONTEXTSWAP)) {
		return StatusInvalidParameter
	}
	if !t.privileged() {
		return StatusPrivilegeNotHeld
	}
	s := t.proc.m.loggerFor(binary.LittleEndian.Uint64(b[8:]))
	if s == nil {
		return nt.StatusWMIInstanceNotFound
	}
	s.pebsHook = n == 1
	return StatusSuccess
}

// setProfileConfig is EventTraceProfileConfigInformation (6.2+): the
// sources PERF_PMC_PROFILE will profile (1 to ETW_MAX_PROFILING_SOURCES);
// they take effect when PERF_PMC_PROFILE is next enabled.
func (m *Machine) setProfileConfig(b []byte) Status {
	n, ok := elements(b)
	if !ok || n == 0 || n > int(nt.ETW_MAX_PROFILING_SOURCES) {
		return StatusInvalidParameter
	}
	s := m.loggerFor(binary.LittleEndian.Uint64(b[8:]))
	if s == nil {
		return nt.StatusWMIInstanceNotFound
	}
	s.pmcConfig = s.pmcConfig[:0]
	for _, v := range ulongs(b[etwHeader:]) {
		s.pmcConfig = append(s.pmcConfig, nt.Source(v))
	}
	return StatusSuccess
}

// setProfileEventList is EventTraceProfileEventListInformation (6.2+):
// the hook IDs whose events carry PMC counters.
func (m *Machine) setProfileEventList(b []byte) Status {
	if _, ok := elements(b); !ok {
		return StatusInvalidParameter
	}
	s := m.loggerFor(binary.LittleEndian.Uint64(b[8:]))
	if s == nil {
		return nt.StatusWMIInstanceNotFound
	}
	s.pmcHooks = s.pmcHooks[:0]
	for _, v := range ulongs(b[etwHeader:]) {
		s.pmcHooks = append(s.pmcHooks, uint16(v))
	}
	return StatusSuccess
}

// setCounterList is EventTraceProfileCounterListInformation (6.2+), in
// the order of docs/reference/tracing.md#eventtraceprofilecounterlistinformation-0x0f:
// whole elements, an active logger, 1 to the maximum counters, once per
// logger run, the ETW_PMC_SUPPORT allocation.
func (m *Machine) setCounterList(b []byte) (Status, error) {
	n, ok := elements(b)
	if !ok {
		return StatusInvalidParameter, nil
	}
	s := m.loggerFor(binary.LittleEndian.Uint64(b[8:]))
	if s == nil {
		return nt.StatusWMIInstanceNotFound, nil
	}
	limit, err := m.maxPMCCounters()
	if err != nil {
		return 0, err
	}
	if n == 0 || n > limit {
		return StatusInvalidParameter, nil
	}
	if s.pmc != nil {
		return nt.StatusWMIAlreadyEnabled, nil
	}
	size := uint64(0x24)
	if m.arch == X64 {
		size = 0x28
	}
	if _, ok := m.poolAlloc(size); !ok { // ETW_PMC_SUPPORT, kept for the logger's run
		return nt.StatusNoMemory, nil
	}
	for _, v := range ulongs(b[etwHeader:]) {
		s.pmc = append(s.pmc, nt.Source(v))
	}
	return StatusSuccess, nil
}

// PMCCounters returns the counters set for the session
// (EventTraceProfileCounterListInformation), the PMC profile sources
// (EventTraceProfileConfigInformation), and whether context-switch events
// carry the PEBS index.
func (s *TraceSession) PMCCounters() (counters, profileSources []nt.Source, pebsIndex bool) {
	return append([]nt.Source(nil), s.pmc...), append([]nt.Source(nil), s.pmcConfig...), s.pebsHook
}

// maxPMCCounters is the most counters a logger may set: 4, 8 from 1703,
// and from 1903 what the HAL reports for HalQueryProfileNumberOfCounters
// (docs/reference/tracing.md#eventtraceprofilecounterlistinformation-0x0f):
// on a machine of several HALs the largest count any of them reports, 0
// with no counter HAL (the choice of docs/reference/README.md). Each
// HAL's answer is a row of the HAL log (call "counters", class 0x2C, on
// processor 0: the query is machine-wide).
func (m *Machine) maxPMCCounters() (int, error) {
	switch {
	case m.ver.key() >= k10_0_18362:
		most := 0
		for _, h := range m.cfg.HALs {
			if err := m.hook("counters", h.Name(), 0, []int{0}); err != nil {
				return 0, err
			}
			n, err := h.NumberOfCounters()
			if err != nil {
				return 0, m.halFailed(h, "number of counters", err)
			}
			m.halLog = append(m.halLog, HALCall{HAL: h.Name(), Call: "counters", Class: int(nt.HalQueryProfileNumberOfCounters),
				Interval: n, HasInterval: true, Supported: true})
			most = max(most, int(n))
		}
		return most, nil
	case m.ver.key() >= k10_0_15063:
		return 8, nil
	}
	return 4, nil
}
