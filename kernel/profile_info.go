package kernel

import (
	"encoding/binary"
	"sort"

	"github.com/proflab/proflab/kernel/nt"
)

// ProfileInfo is the lab's view of a profile object, for inspection.
type ProfileInfo struct {
	Started      bool
	MappedBuffer uint64 // EPROFILE's system-mapped buffer address; 0 while stopped
	Global       bool   // on the global list (else on its process's list)
	OnList       bool   // the KPROFILE is on a list
	Process      uint32 // profiled process id, 0 for global
	Base, Size   uint64
	BucketSize   uint32
	Buffer       uint64
	BufferSize   uint32
	Segment      uint64
	Source       nt.Source
	Affinity     uint64 // as stored at create
	Processors   uint64 // the processors the KPROFILE counts on (while started)
}

// ProfileInfo looks up a profile handle in p's table.
func (p *Process) ProfileInfo(handle uint64) (ProfileInfo, bool) {
	return p.profileInfo(handle, nil)
}

// profileInfo is ProfileInfo; listed, when not nil, holds the profiles
// on the kernel's lists (Profiles finds them once, instead of walking a
// list for each of thousands of profiles).
func (p *Process) profileInfo(handle uint64, listed map[*kprofile]bool) (ProfileInfo, bool) {
	e, ok := p.handles[handle&p.m.lay.ptrMask&^3]
	if !ok {
		return ProfileInfo{}, false
	}
	ep, ok := e.obj.(*eprofile)
	if !ok {
		return ProfileInfo{}, false
	}
	info := ProfileInfo{Started: ep.mapped != 0, MappedBuffer: ep.mapped, Global: ep.process == nil,
		Base: ep.base, Size: ep.size, BucketSize: ep.bucketSize, Buffer: ep.buffer, BufferSize: ep.bufferSize,
		Segment: ep.segment, Source: ep.source, Affinity: ep.affinity}
	if ep.process != nil {
		info.Process = ep.process.id
	}
	if ep.kp != nil {
		info.Processors = ep.kp.affinity
		if listed != nil {
			info.OnList = listed[ep.kp]
		} else {
			list := &p.m.globalList
			if ep.process != nil {
				list = &ep.process.list
			}
			for k := list.head; k != nil; k = k.next {
				info.OnList = info.OnList || k == ep.kp
			}
		}
	}
	return info, true
}

// ProfileRecord is one profile handle in some process's table.
type ProfileRecord struct {
	Owner  *Process // the process whose handle table holds it
	Handle uint64
	Info   ProfileInfo
}

// ProfileCloseHook sees a profile as its last handle is closed, before
// the kernel stops it (if started) and deletes it: rec is the profile as
// that handle shows it, and rec.Counters can still be read. The lab's
// outputs keep, with it, the buckets of the profiles a scenario or a tool
// closed (kernrate closes every profile it made), which Profiles no
// longer lists. The hook only observes: it must not call into the
// machine.
type ProfileCloseHook func(rec ProfileRecord)

// OnProfileClose installs the machine's ProfileCloseHook (nil removes it).
func (m *Machine) OnProfileClose(f ProfileCloseHook) { m.closeHook = f }

// Profiles lists every profile handle of every process (processes by id,
// handles ascending), for the lab's outputs.
func (m *Machine) Profiles() []ProfileRecord {
	var out []ProfileRecord
	listed := map[*kprofile]bool{}
	for k := m.globalList.head; k != nil; k = k.next {
		listed[k] = true
	}
	for _, p := range m.Processes() {
		for k := p.list.head; k != nil; k = k.next {
			listed[k] = true
		}
	}
	for _, p := range m.Processes() {
		hs := make([]uint64, 0, len(p.handles))
		for h, e := range p.handles {
			if _, ok := e.obj.(*eprofile); ok {
				hs = append(hs, h)
			}
		}
		sort.Slice(hs, func(i, j int) bool { return hs[i] < hs[j] })
		for _, h := range hs {
			info, _ := p.profileInfo(h, listed)
			out = append(out, ProfileRecord{Owner: p, Handle: h, Info: info})
		}
	}
	return out
}

// Counters reads a profile's bucket counters through its system mapping
// while it is started, or from its owner's buffer while stopped. n is the
// number of whole ULONGs in the buffer.
//
// Counters makes every counter, zero or not: a buffer of 2 GB makes 512 M
// of them. The lab's outputs read [ProfileRecord.EachCounter].
func (r ProfileRecord) Counters() ([]uint32, error) {
	n := int(r.Info.BufferSize / 4)
	b := make([]byte, 4*n)
	var err error
	if r.Info.MappedBuffer != 0 {
		err = r.Owner.m.ReadSystem(r.Info.MappedBuffer, b)
	} else {
		err = r.Owner.MainThread().Read(r.Info.Buffer, b)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out, err
}

// EachCounter calls fn with the index and value of every counter of the
// profile's buffer that is not zero, in ascending order, reading only
// the buffer's pages that were ever written: a page never written holds
// zeros, and is neither read nor allocated, so that reading a buffer
// costs what its counted pages cost, not its size. It stops at fn's
// first error and returns it. A buffer that cannot be read (it was
// freed) fails before fn is called, as [ProfileRecord.Counters] fails.
func (r ProfileRecord) EachCounter(fn func(i int, count uint32) error) error {
	n := int(r.Info.BufferSize / 4)
	view, base := r.Owner.MainThread().view(), r.Info.Buffer
	if r.Info.MappedBuffer != 0 {
		view, base = r.Owner.m.sysView(), r.Info.MappedBuffer
	}
	var ferr error
	last := -1 // the last counter handed to fn's test
	err := view.present(base, 4*n, func(lo int, b []byte) {
		for i := lo / 4; 4*i < lo+len(b) && ferr == nil; i++ {
			if i <= last {
				continue // it straddled the page before, and was read whole
			}
			last = i
			var c uint32
			if at := 4*i - lo; at >= 0 && at+4 <= len(b) {
				c = binary.LittleEndian.Uint32(b[at:])
			} else {
				// it straddles a page boundary (a buffer not 4-aligned)
				var w [4]byte
				_ = view.read(base+uint64(4*i), w[:])
				c = binary.LittleEndian.Uint32(w[:])
			}
			if c != 0 {
				ferr = fn(i, c)
			}
		}
	})
	if err != nil {
		return err
	}
	return ferr
}
