package sim

import (
	"encoding/binary"

	"github.com/proflab/proflab/kernel/nt"
)

// This file is PEBS: records written into the DS save area's buffer, the
// interrupt at the threshold, and the control areas the buffers live in.

// pebsRecord is a record written and not yet delivered.
type pebsRecord struct {
	source nt.Source
	ip     uint64
	at     where
}

// pebsOverflow handles a PEBS counter's overflow on c: a record with the
// exact IP, and at the threshold the interrupts of every pending record.
func (rs *runState) pebsOverflow(c *cpuRun, b *bank, i int, k *counterHW) {
	s := rs.s
	ds := &b.ds[c.idx]
	if s.dsDirty {
		s.setupDS()
	}
	if !ds.enabled || ds.ca == 0 || ds.buf == 0 {
		if !k.warned {
			k.warned = true
			s.logf("%s: processor %d: PEBS is not set up in the DS save area: %s overflows deliver nothing there", b.name, c.idx, k.source)
		}
		return
	}
	if i < len(ds.reset) && ds.reset[i] != 0 {
		k.remaining = float64(ds.reset[i]) + min(k.remaining-float64(k.reload), 0)
	}
	at := rs.current(c)
	ip := rs.interruptedIP(c, at, 0)
	rec := pebsRecord{source: k.source, ip: ip, at: at}
	s.writeRecord(c.idx, ds, rec, i)
	ds.pending = append(ds.pending, rec)
	ds.index++
	if ds.index >= ds.thresholdRecords || ds.index >= ds.bufferRecords {
		pend := ds.pending
		ds.pending = ds.pending[:0:0]
		ds.index = 0
		s.writeIndex(ds)
		for _, r := range pend {
			rs.deliver(c, b, r.source, r.ip, r.at, true)
			if rs.stopErr != nil {
				return
			}
		}
	}
}

// PEBS record layout (the 0xC0-byte record of recent cores): RFLAGS at
// 0x00, RIP at 0x08, IA32_PERF_GLOBAL_STATUS at 0x90, EventingIP at 0xB0,
// TSC at 0xB8. Fields past RecordSize are not written.
func (s *Sim) writeRecord(cpu int, ds *dsHW, r pebsRecord, counter int) {
	size := uint64(ds.recordSize)
	b := make([]byte, size)
	put := func(off uint64, v uint64) {
		if off+8 <= size {
			binary.LittleEndian.PutUint64(b[off:], v)
		}
	}
	put(0x00, 0x202)
	put(0x08, r.ip)
	put(0x90, 1<<uint(counter))
	put(0xB0, r.ip)
	put(0xB8, s.now)
	addr := ds.buf + uint64(ds.index)*size
	if err := s.m.WriteSystem(addr, b); err != nil {
		s.logf("processor %d: writing a PEBS record at 0x%X: %v", cpu, addr, err)
	}
	ds.index++
	s.writeIndex(ds)
	ds.index--
}

func (s *Sim) writeIndex(ds *dsHW) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], ds.buf+uint64(ds.index)*uint64(ds.recordSize))
	_ = s.m.WriteSystem(ds.ca+0x28, b[:])
}

// setupDS points every enabled DS programming at a PEBS buffer in its
// processor's control area.
func (s *Sim) setupDS() {
	s.dsDirty = false
	for _, b := range s.banks {
		for cpu := range b.ds {
			ds := &b.ds[cpu]
			if !ds.enabled || cpu >= s.ncpu {
				continue
			}
			ca := s.m.ControlArea(cpu)
			if ca == 0 {
				ds.ca = 0
				continue
			}
			need := uint64(ds.bufferRecords) * uint64(ds.recordSize)
			if ds.buf == 0 || ds.bufSize < need {
				buf, err := s.m.MapHardwareBuffer(need)
				if err != nil {
					s.logf("%s: processor %d: no PEBS buffer: %v", b.name, cpu, err)
					continue
				}
				ds.buf, ds.bufSize = buf, need
			}
			ds.ca = ca
			var area [0x60]byte
			le := binary.LittleEndian
			le.PutUint64(area[0x20:], ds.buf)
			le.PutUint64(area[0x28:], ds.buf+uint64(ds.index)*uint64(ds.recordSize))
			le.PutUint64(area[0x30:], ds.buf+need)
			le.PutUint64(area[0x38:], ds.buf+uint64(ds.thresholdRecords)*uint64(ds.recordSize))
			for i, r := range ds.reset {
				le.PutUint64(area[0x40+8*i:], uint64(r))
			}
			if err := s.m.WriteSystem(ca, area[:]); err != nil {
				s.logf("%s: processor %d: writing the DS save area: %v", b.name, cpu, err)
			}
		}
	}
}

// observeControlAreas tells ControlAreaObserver HALs about processors that
// gained or lost a control area since the last run.
func (s *Sim) observeControlAreas() {
	var gained, lost []int
	for cpu := range s.ncpu {
		has := s.m.ControlArea(cpu) != 0
		if has != s.caPresent[cpu] {
			if has {
				gained = append(gained, cpu)
			} else {
				lost = append(lost, cpu)
			}
			s.caPresent[cpu] = has
			s.dsDirty = true
		}
	}
	for _, h := range s.hals {
		if h == nil || !h.Abilities().ControlAreaObserver {
			continue
		}
		if len(gained) > 0 {
			if err := h.ControlArea(gained, true); err != nil {
				s.logf("%v", err)
			}
		}
		if len(lost) > 0 {
			if err := h.ControlArea(lost, false); err != nil {
				s.logf("%v", err)
			}
		}
	}
}
