package kernel

import (
	"encoding/binary"
	"unicode/utf16"

	"github.com/proflab/proflab/kernel/nt"
)

// TraceQueryInformation is ADVAPI32's TraceQueryInformation (6.2+) for
// the profile classes
// (docs/reference/tracing.md#tracequeryinformation-and-tracesetinformation).
// It returns a Win32 error code.
func (t *Thread) TraceQueryInformation(session uint64, class uint32, buf uint64, length uint32, retLen uint64) (uint32, error) {
	m := t.proc.m
	if err := m.checkRunning(); err != nil {
		return 0, err
	}
	if !m.ver.hasTraceQuery() {
		return 0, &UnknownServiceError{Service: "TraceQueryInformation", Version: m.ver}
	}
	buf &= m.lay.ptrMask
	retLen &= m.lay.ptrMask
	switch class {
	case nt.TraceSampledProfileIntervalInfo:
		src, _, code := t.traceProfileInterval(session, buf, length)
		if code != nt.ErrorSuccess {
			return code, nil
		}
		if src == nt.ProfileTime {
			// kernel sub-class EventTraceTimeProfileInformation, into
			// ADVAPI32's own buffer, then copied out
			if t.view().writeU32(buf+4, m.timeInterval) != nil {
				return nt.ErrorNoAccess, nil
			}
		} else {
			st, err := t.NtQueryIntervalProfile(src, buf+4)
			if err != nil || st != StatusSuccess {
				return nt.Win32Error(st), err
			}
		}
		return t.traceRetLen(retLen, 8), nil
	case nt.TraceSystemTraceEnableFlagsInfo:
		if length < 32 {
			return nt.ErrorBadLength, nil
		}
		masks, st := m.queryGroupMask(etwStruct(nt.EventTraceGroupMaskInformation, session, make([]uint32, 8)))
		if st != StatusSuccess {
			return nt.Win32Error(st), nil
		}
		out := make([]byte, 32)
		for i, v := range masks {
			binary.LittleEndian.PutUint32(out[4*i:], v)
		}
		if t.view().write(buf, out) != nil {
			return nt.ErrorNoAccess, nil
		}
		return t.traceRetLen(retLen, 32), nil
	case nt.TraceProfileSourceListInfo:
		if session != 0 {
			return nt.ErrorInvalidParameter, nil
		}
		out := m.profileSourceList()
		if buf == 0 || uint64(length) < uint64(len(out)) {
			if r := t.traceRetLen(retLen, uint32(len(out))); r != nt.ErrorSuccess {
				return r, nil
			}
			return nt.ErrorBadLength, nil
		}
		if t.view().write(buf, out) != nil {
			return nt.ErrorNoAccess, nil
		}
		return t.traceRetLen(retLen, uint32(len(out))), nil
	}
	return nt.ErrorNotSupported, nil
}

func (t *Thread) traceRetLen(retLen uint64, v uint32) uint32 {
	if retLen != 0 && t.view().writeU32(retLen, v) != nil {
		return nt.ErrorNoAccess
	}
	return nt.ErrorSuccess
}

// profileSourceList is the chain of PROFILE_SOURCE_INFO records for the
// sources the machine's HALs support: 8-byte aligned records in source
// order, each with the HAL's description string.
func (m *Machine) profileSourceList() []byte {
	var out []byte
	for i, d := range m.descs {
		desc := utf16.Encode([]rune(d.Description))
		size := (0x18 + 2*(len(desc)+1) + 7) &^ 7
		rec := make([]byte, size)
		if i < len(m.descs)-1 {
			binary.LittleEndian.PutUint32(rec[0x00:], uint32(size))
		}
		binary.LittleEndian.PutUint32(rec[0x04:], uint32(d.Source))
		binary.LittleEndian.PutUint32(rec[0x08:], d.Bounds.Min)
		binary.LittleEndian.PutUint32(rec[0x0C:], d.Bounds.Max)
		for j, c := range desc {
			binary.LittleEndian.PutUint16(rec[0x18+2*j:], c)
		}
		out = append(out, rec...)
	}
	return out
}

// TraceSetInformation is ADVAPI32's TraceSetInformation (6.1+; the
// profile classes from 6.2) for the profile classes
// (docs/reference/tracing.md#tracequeryinformation-and-tracesetinformation).
// It returns a Win32 error code.
func (t *Thread) TraceSetInformation(session uint64, class uint32, buf uint64, length uint32) (uint32, error) {
	m := t.proc.m
	if err := m.checkRunning(); err != nil {
		return 0, err
	}
	if !m.ver.hasTraceSet() {
		return 0, &UnknownServiceError{Service: "TraceSetInformation", Version: m.ver}
	}
	if !m.ver.hasTraceProfileClasses() {
		return nt.ErrorNotSupported, nil
	}
	buf &= m.lay.ptrMask
	switch class {
	case nt.TraceSampledProfileIntervalInfo:
		src, interval, code := t.traceProfileInterval(session, buf, length)
		if code != nt.ErrorSuccess {
			return code, nil
		}
		var st Status
		var err error
		if src == nt.ProfileTime {
			// kernel sub-class EventTraceTimeProfileInformation
			if t.mode == UserMode && !t.proc.token.HasPrivilege(nt.SeSystemProfilePrivilege) {
				return nt.ErrorPrivilegeNotHeld, nil
			}
			st, err = m.setInterval(t.cpu, interval, nt.ProfileTime)
		} else {
			st, err = t.NtSetIntervalProfile(interval, src)
		}
		return nt.Win32Error(st), err
	case nt.TraceSystemTraceEnableFlagsInfo:
		// up to 8 masks, whole ULONGs; masks not given are sent as 0
		if length%4 != 0 || length > 32 {
			return nt.ErrorInvalidParameter, nil
		}
		vals, ok := t.traceULONGs(buf, length)
		if !ok {
			return nt.ErrorNoAccess, nil
		}
		masks := make([]uint32, 8)
		copy(masks, vals)
		st, err := t.setGroupMask(etwStruct(nt.EventTraceGroupMaskInformation, session, masks))
		return nt.Win32Error(st), err
	case nt.TraceProfileSourceConfigInfo, nt.TracePmcCounterListInfo:
		if length%4 != 0 || length > 4*nt.ETW_MAX_PMC_COUNTERS {
			return nt.ErrorIncorrectSize, nil
		}
		if length == 0 || buf == 0 {
			return nt.ErrorInvalidParameter, nil
		}
		vals, ok := t.traceULONGs(buf, length)
		if !ok {
			return nt.ErrorNoAccess, nil
		}
		if class == nt.TraceProfileSourceConfigInfo {
			return nt.Win32Error(m.setProfileConfig(etwStruct(nt.EventTraceProfileConfigInformation, session, vals))), nil
		}
		st, err := m.setCounterList(etwStruct(nt.EventTraceProfileCounterListInformation, session, vals))
		return nt.Win32Error(st), err
	case nt.TracePmcEventListInfo:
		const entry = 24 // CLASSIC_EVENT_ID: GUID, Type, Reserved[7]
		if length%entry != 0 || length > 4*entry {
			return nt.ErrorIncorrectSize, nil
		}
		if length == 0 && buf != 0 {
			return nt.ErrorInvalidParameter, nil
		}
		raw := make([]byte, length)
		if t.view().read(buf, raw) != nil {
			return nt.ErrorNoAccess, nil
		}
		var hooks []uint32
		for i := 0; i < len(raw); i += entry {
			if group, known := eventGroup(raw[i : i+16]); known {
				hooks = append(hooks, uint32(group)<<8|uint32(raw[i+16]))
			} // unknown GUIDs are skipped
		}
		return nt.Win32Error(m.setProfileEventList(etwStruct(nt.EventTraceProfileEventListInformation, session, hooks))), nil
	}
	return nt.ErrorNotSupported, nil
}

// traceULONGs reads length bytes of ULONGs from the caller's buffer.
func (t *Thread) traceULONGs(buf uint64, length uint32) ([]uint32, bool) {
	raw := make([]byte, length)
	if t.view().read(buf, raw) != nil {
		return nil, false
	}
	return ulongs(raw), true
}

// perfInfoGUID is PerfInfoGuid {CE1DBFB4-137E-4DA6-87B0-3F59AA102CBC} in
// its in-memory (little-endian fields) layout.
var perfInfoGUID = [16]byte{0xB4, 0xBF, 0x1D, 0xCE, 0x7E, 0x13, 0xA6, 0x4D, 0x87, 0xB0, 0x3F, 0x59, 0xAA, 0x10, 0x2C, 0xBC}

// eventGroup maps an event GUID to its hook group (the hook ID's high
// byte); the model knows the PERFINFO group.
func eventGroup(guid []byte) (byte, bool) {
	if [16]byte(guid) == perfInfoGUID {
		return 0x0F, true
	}
	return 0, false
}

// traceProfileInterval reads class 5's TRACE_PROFILE_INTERVAL {ULONG
// Source; ULONG Interval}: the session must be 0 and the buffer exactly 8
// bytes. It returns the Win32 error for a bad request.
func (t *Thread) traceProfileInterval(session, buf uint64, length uint32) (nt.Source, uint32, uint32) {
	if session != 0 {
		return 0, 0, nt.ErrorInvalidParameter
	}
	if length != 8 {
		return 0, 0, nt.ErrorBadLength
	}
	var b [8]byte
	if t.view().read(buf, b[:]) != nil {
		return 0, 0, nt.ErrorNoAccess
	}
	return nt.Source(binary.LittleEndian.Uint32(b[:4])), binary.LittleEndian.Uint32(b[4:]), nt.ErrorSuccess
}
