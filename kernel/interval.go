package kernel

import "github.com/proflab/proflab/kernel/nt"

// NtQueryIntervalProfile reports a source's interval
// (docs/reference/intervals.md#ntqueryintervalprofile). On 3.10 and
// 3.50 the declaration has no source: the source is ignored and the
// kernel's ProfileTime interval is reported without a HAL call.
func (t *Thread) NtQueryIntervalProfile(src nt.Source, interval uint64) (Status, error) {
	m := t.proc.m
	if err := m.checkRunning(); err != nil {
		return 0, err
	}
	interval &= m.lay.ptrMask
	v := t.view()
	if t.mode == UserMode {
		if st := v.probeVariable(interval, 4); st != StatusSuccess {
			return st, nil
		}
	}
	val, err := m.currentInterval(t.cpu, src)
	if err != nil {
		return 0, err
	}
	if err := v.writeU32(interval, val); err != nil && t.mode == KernelMode {
		return 0, m.pageFault(interval, true)
	}
	// a user-mode write that faults after the probe is ignored: success
	return StatusSuccess, nil
}

// currentInterval is the kernel's query: ProfileAlignmentFixup is the
// kernel's own value; every other source is asked of the HAL (logged),
// 0 when unsupported.
func (m *Machine) currentInterval(cpu int, src nt.Source) (uint32, error) {
	switch {
	case !m.ver.hasSource():
		return m.timeInterval, nil
	case src == nt.ProfileAlignmentFixup:
		return m.fixupInterval, nil
	}
	info, err := m.halQuery([]int{cpu}, src)
	if err != nil {
		return 0, err
	}
	if !info[0].Supported {
		return 0, nil
	}
	return info[0].Interval, nil
}

// NtSetIntervalProfile sets a source's interval
// (docs/reference/intervals.md#ntsetintervalprofile). From 6.2 a
// user-mode caller needs SeSystemProfilePrivilege; with it (or before 6.2)
// the call always succeeds.
func (t *Thread) NtSetIntervalProfile(interval uint32, src nt.Source) (Status, error) {
	m := t.proc.m
	if err := m.checkRunning(); err != nil {
		return 0, err
	}
	if m.ver.setNeedsPrivilege() && t.mode == UserMode && !t.proc.token.HasPrivilege(nt.SeSystemProfilePrivilege) {
		return StatusPrivilegeNotHeld, nil
	}
	return m.setInterval(t.cpu, interval, src)
}

// setInterval is the body of the set shared by NtSetIntervalProfile and
// the EventTraceTimeProfileInformation set.
func (m *Machine) setInterval(cpu int, interval uint32, src nt.Source) (Status, error) {
	if !m.ver.hasSource() {
		src = nt.ProfileTime
	}
	// 1. old value, if profile tracing is already on.
	var old uint32
	if m.ver.hasSetIntervalEvent() && m.profileTracing() {
		var err error
		if old, err = m.currentInterval(cpu, src); err != nil {
			return 0, err
		}
	}
	// 2. cache errata: never a ProfileTime interval longer than needed.
	if src == nt.ProfileTime && m.cfg.CacheErrataInterval != 0 && interval > m.cfg.CacheErrataInterval {
		interval = m.cfg.CacheErrataInterval
	}
	switch {
	case src == nt.ProfileAlignmentFixup && m.ver.hasSource():
		// 4. kernel-managed: remembered, no HAL.
		m.fixupInterval = interval
	default:
		// 3. every active processor (3.10/3.50: HalSetProfileInterval).
		class := int(nt.HalProfileSourceInterval)
		if !m.ver.hasSource() {
			class = -1
		}
		cpus := m.allCPUs()
		eff, err := m.halSet(cpus, src, interval, class)
		if err != nil {
			return 0, err
		}
		if src == nt.ProfileTime && eff != nil {
			m.timeInterval = eff[cpu]
		}
	}
	// 5. the set-interval event, if tracing is on now.
	if m.ver.hasSetIntervalEvent() && m.profileTracing() {
		nv, err := m.currentInterval(cpu, src)
		if err != nil {
			return 0, err
		}
		m.logger.emit(Event{Hook: nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL, CPU: cpu, Time: m.now,
			Source: uint32(src), NewInterval: nv, OldInterval: old})
	}
	return StatusSuccess, nil
}

// TimeInterval is the kernel's current ProfileTime interval (what
// EventTraceTimeProfileInformation reports).
func (m *Machine) TimeInterval() uint32 { return m.timeInterval }
