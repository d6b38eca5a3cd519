package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// The trace is Perfetto's own protobuf format (a perfetto.protos.Trace:
// a sequence of TracePackets), written by hand with protowire. Field
// numbers are Perfetto's (protos/perfetto/trace/trace_packet.proto,
// track_event/*.proto, interned_data/interned_data.proto); they are
// stable by contract.
const (
	fTracePacket = 1 // Trace.packet

	fPktTimestamp     = 8  // TracePacket.timestamp (ns)
	fPktSequenceID    = 10 // TracePacket.trusted_packet_sequence_id
	fPktTrackEvent    = 11 // TracePacket.track_event
	fPktInternedData  = 12 // TracePacket.interned_data
	fPktSequenceFlags = 13 // TracePacket.sequence_flags
	fPktTrackDesc     = 60 // TracePacket.track_descriptor

	seqIncrementalStateCleared = 1 // SEQ_INCREMENTAL_STATE_CLEARED
	seqNeedsIncrementalState   = 2 // SEQ_NEEDS_INCREMENTAL_STATE

	fTrackUUID    = 1 // TrackDescriptor.uuid
	fTrackName    = 2 // TrackDescriptor.name
	fTrackProcess = 3 // TrackDescriptor.process
	fTrackThread  = 4 // TrackDescriptor.thread
	fTrackParent  = 5 // TrackDescriptor.parent_uuid

	fProcPID  = 1 // ProcessDescriptor.pid
	fProcName = 6 // ProcessDescriptor.process_name

	fThreadPID  = 1 // ThreadDescriptor.pid
	fThreadTID  = 2 // ThreadDescriptor.tid
	fThreadName = 5 // ThreadDescriptor.thread_name

	fEvAnnotation = 4  // TrackEvent.debug_annotations
	fEvType       = 9  // TrackEvent.type
	fEvNameIID    = 10 // TrackEvent.name_iid
	fEvTrackUUID  = 11 // TrackEvent.track_uuid

	evSliceBegin = 1 // TYPE_SLICE_BEGIN
	evSliceEnd   = 2 // TYPE_SLICE_END
	evInstant    = 3 // TYPE_INSTANT

	fAnnNameIID   = 1  // DebugAnnotation.name_iid
	fAnnBool      = 2  // DebugAnnotation.bool_value
	fAnnUint      = 3  // DebugAnnotation.uint_value
	fAnnPointer   = 7  // DebugAnnotation.pointer_value
	fAnnStringIID = 17 // DebugAnnotation.string_value_iid

	fInternEventNames = 2  // InternedData.event_names (EventName)
	fInternAnnNames   = 3  // InternedData.debug_annotation_names (DebugAnnotationName)
	fInternAnnStrings = 29 // InternedData.debug_annotation_string_values (InternedString)
	fInternIID        = 1  // EventName.iid, DebugAnnotationName.iid, InternedString.iid
	fInternName       = 2  // EventName.name, DebugAnnotationName.name, InternedString.str
)

// sequenceID is the one packet sequence the file is written as.
const sequenceID = 1

// perfettoWriter writes packets through a bounded buffer, interning
// event names, argument names and argument strings.
type perfettoWriter struct {
	max, written int64 // the size limit (0: none) and the bytes written
	w            *bufio.Writer
	first        bool
	iids         [3]map[string]uint64 // event names, annotation names, annotation strings
	// pending interned entries for the next packet
	interned []byte
	pkt, ev  []byte
	events   int64
	nextUUID uint64
}

func newPerfettoWriter(w io.Writer) *perfettoWriter {
	pw := &perfettoWriter{w: bufio.NewWriterSize(w, 256<<10), first: true, nextUUID: 1}
	for i := range pw.iids {
		pw.iids[i] = map[string]uint64{}
	}
	return pw
}

var internField = [3]protowire.Number{fInternEventNames, fInternAnnNames, fInternAnnStrings}

// intern returns s's iid in table t, queueing its definition for the
// next packet when it is new.
func (pw *perfettoWriter) intern(t int, s string) uint64 {
	if id, ok := pw.iids[t][s]; ok {
		return id
	}
	id := uint64(len(pw.iids[t]) + 1)
	pw.iids[t][s] = id
	var entry []byte
	entry = protowire.AppendTag(entry, fInternIID, protowire.VarintType)
	entry = protowire.AppendVarint(entry, id)
	entry = protowire.AppendTag(entry, fInternName, protowire.BytesType)
	entry = protowire.AppendString(entry, s)
	pw.interned = protowire.AppendTag(pw.interned, internField[t], protowire.BytesType)
	pw.interned = protowire.AppendBytes(pw.interned, entry)
	return id
}

func appendVarint(b []byte, n protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, n, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBytes(b []byte, n protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendString(b []byte, n protowire.Number, v string) []byte {
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendString(b, v)
}

// packet writes one TracePacket holding body as field n.
func (pw *perfettoWriter) packet(ts uint64, hasTS bool, n protowire.Number, body []byte) error {
	p := pw.pkt[:0]
	if hasTS {
		p = appendVarint(p, fPktTimestamp, ts)
	}
	p = appendVarint(p, fPktSequenceID, sequenceID)
	switch {
	case pw.first:
		p = appendVarint(p, fPktSequenceFlags, seqIncrementalStateCleared)
		pw.first = false
	case n == fPktTrackEvent:
		p = appendVarint(p, fPktSequenceFlags, seqNeedsIncrementalState)
	}
	if len(pw.interned) > 0 {
		p = appendBytes(p, fPktInternedData, pw.interned)
		pw.interned = pw.interned[:0]
	}
	p = appendBytes(p, n, body)
	pw.pkt = p
	var frame [16]byte
	f := protowire.AppendTag(frame[:0], fTracePacket, protowire.BytesType)
	f = protowire.AppendVarint(f, uint64(len(p)))
	if size := int64(len(f) + len(p)); pw.max > 0 && pw.written+size > pw.max {
		return errTraceFull
	} else {
		pw.written += size
	}
	if _, err := pw.w.Write(f); err != nil {
		return err
	}
	_, err := pw.w.Write(p)
	return err
}

// errTraceFull stops a trace at its size limit, after its last whole
// packet.
var errTraceFull = errors.New("the trace reached its size limit")

// track describes a track and returns its uuid.
func (pw *perfettoWriter) track(name string, parent uint64, process, thread []byte) (uint64, error) {
	uuid := pw.nextUUID
	pw.nextUUID++
	var d []byte
	d = appendVarint(d, fTrackUUID, uuid)
	if name != "" {
		d = appendString(d, fTrackName, name)
	}
	if parent != 0 {
		d = appendVarint(d, fTrackParent, parent)
	}
	if process != nil {
		d = appendBytes(d, fTrackProcess, process)
	}
	if thread != nil {
		d = appendBytes(d, fTrackThread, thread)
	}
	return uuid, pw.packet(0, false, fPktTrackDesc, d)
}

// arg is one debug annotation of an event.
type arg struct {
	name string
	kind byte // 'u' uint, 'p' pointer, 'b' bool, 's' interned string
	u    uint64
	s    string
}

// event writes a TrackEvent of type typ named name on track at ts (ns).
func (pw *perfettoWriter) event(ts, track uint64, typ uint64, name string, args ...arg) error {
	e := pw.ev[:0]
	e = appendVarint(e, fEvType, typ)
	e = appendVarint(e, fEvTrackUUID, track)
	if name != "" {
		e = appendVarint(e, fEvNameIID, pw.intern(0, name))
	}
	for _, a := range args {
		var ann [32]byte
		an := appendVarint(ann[:0], fAnnNameIID, pw.intern(1, a.name))
		switch a.kind {
		case 'u':
			an = appendVarint(an, fAnnUint, a.u)
		case 'p':
			an = appendVarint(an, fAnnPointer, a.u)
		case 'b':
			an = appendVarint(an, fAnnBool, a.u)
		case 's':
			an = appendVarint(an, fAnnStringIID, pw.intern(2, a.s))
		}
		e = appendBytes(e, fEvAnnotation, an)
	}
	pw.ev = e
	pw.events++
	return pw.packet(ts, true, fPktTrackEvent, e)
}

// ntThread is a thread as the trace names it.
type ntThread struct {
	pid, tid uint32
	name     string
	track    uint64
}

// machineTrace writes one machine's tracks and events.
type machineTrace struct {
	pw       *perfettoWriter
	e        *Machine
	cpuTrack []uint64
	threads  map[uint32]*ntThread
	open     []*ntThread // per processor, the thread whose slice is open
	sy       *symbols
}

// traceID is an NT id as the trace shows it: itself on machine 1; on
// machine k, plus (k−1)·1,000,000, so that machines do not share ids.
func traceID(machine int, id uint32) uint64 { return uint64(machine-1)*1_000_000 + uint64(id) }

func (mt *machineTrace) describe() error {
	pw, e := mt.pw, mt.e
	root, err := pw.track(fmt.Sprintf("machine %d (%s)", e.Index, e.Kernel.Version()), 0, nil, nil)
	if err != nil {
		return err
	}
	n := e.Kernel.CPUCount()
	mt.cpuTrack = make([]uint64, n)
	mt.open = make([]*ntThread, n)
	for c := range n {
		if mt.cpuTrack[c], err = pw.track(fmt.Sprintf("CPU %d", c), root, nil, nil); err != nil {
			return err
		}
	}
	mt.threads = map[uint32]*ntThread{}
	for _, p := range e.Kernel.Processes() {
		pid := traceID(e.Index, p.ID())
		var pd []byte
		pd = appendVarint(pd, fProcPID, pid)
		pd = appendString(pd, fProcName, p.Name())
		pt, err := pw.track("", 0, pd, nil)
		if err != nil {
			return err
		}
		for i, t := range p.Threads() {
			th := &ntThread{pid: p.ID(), tid: t.ID(), name: fmt.Sprintf("%s thread %d", p.Name(), i+1)}
			var td []byte
			td = appendVarint(td, fThreadPID, pid)
			td = appendVarint(td, fThreadTID, traceID(e.Index, t.ID()))
			td = appendString(td, fThreadName, th.name)
			if th.track, err = pw.track("", pt, nil, td); err != nil {
				return err
			}
			mt.threads[t.ID()] = th
		}
	}
	return nil
}

// schedule draws one scheduling decision: the processor's open slice
// ends, the new thread's begins (on the processor's track and on the
// thread's own).
func (mt *machineTrace) schedule(sw sim.Switch) error {
	if sw.CPU >= len(mt.open) {
		return nil
	}
	ts := sw.Time * 100
	if th := mt.open[sw.CPU]; th != nil {
		if err := mt.pw.event(ts, mt.cpuTrack[sw.CPU], evSliceEnd, ""); err != nil {
			return err
		}
		if err := mt.pw.event(ts, th.track, evSliceEnd, ""); err != nil {
			return err
		}
		mt.open[sw.CPU] = nil
	}
	th := mt.threads[sw.Thread]
	if sw.Thread == 0 || th == nil {
		return nil
	}
	mt.open[sw.CPU] = th
	if err := mt.pw.event(ts, mt.cpuTrack[sw.CPU], evSliceBegin, th.name,
		arg{name: "ProcessId", kind: 'u', u: uint64(th.pid)}, arg{name: "ThreadId", kind: 'u', u: uint64(th.tid)}); err != nil {
		return err
	}
	return mt.pw.event(ts, th.track, evSliceBegin, fmt.Sprintf("running on CPU %d", sw.CPU))
}

// logged writes one NT Kernel Logger event as an instant on the
// processor that took it, with the event's fields as arguments.
// ExecutingIsr and ExecutingDpc appear when true, Count when not 1, the
// session when the machine had more than one.
func (mt *machineTrace) logged(ev kernel.Event, session int) error {
	if ev.CPU < 0 || ev.CPU >= len(mt.cpuTrack) {
		return nil
	}
	args := make([]arg, 0, 8)
	var name string
	fn := func() {
		if f, ok := mt.sy.lookup(ev.InstructionPointer, ev.InstructionPointer+1); ok {
			args = append(args, arg{name: "function", kind: 's', s: f.Name})
		}
	}
	switch ev.Hook {
	case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE:
		name = "SampledProfile"
		args = append(args, arg{name: "InstructionPointer", kind: 'p', u: ev.InstructionPointer}, arg{name: "ThreadId", kind: 'u', u: uint64(ev.ThreadId)})
		if ev.Count != 1 {
			args = append(args, arg{name: "Count", kind: 'u', u: uint64(ev.Count)})
		}
		if ev.ExecutingIsr {
			args = append(args, arg{name: "ExecutingIsr", kind: 'b', u: 1})
		}
		if ev.ExecutingDpc {
			args = append(args, arg{name: "ExecutingDpc", kind: 'b', u: 1})
		}
		fn()
	case nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT:
		name = "PmcInterrupt"
		args = append(args, arg{name: "InstructionPointer", kind: 'p', u: ev.InstructionPointer}, arg{name: "ThreadId", kind: 'u', u: uint64(ev.ThreadId)},
			arg{name: "ProfileSource", kind: 's', s: nt.Source(ev.ProfileSource).Name()})
		fn()
	case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL:
		name = "SampledProfileSetInterval"
		args = append(args, arg{name: "Source", kind: 's', s: nt.Source(ev.Source).Name()},
			arg{name: "NewInterval", kind: 'u', u: uint64(ev.NewInterval)}, arg{name: "OldInterval", kind: 'u', u: uint64(ev.OldInterval)})
	default:
		name = fmt.Sprintf("hook 0x%04X", ev.Hook)
	}
	if len(mt.e.Sessions) > 1 {
		args = append(args, arg{name: "session", kind: 'u', u: uint64(session)})
	}
	return mt.pw.event(ev.Time*100, mt.cpuTrack[ev.CPU], evInstant, name, args...)
}

// write writes the machine: its tracks, then its scheduling decisions
// and logged events merged in time order (events first at equal times).
func (mt *machineTrace) write() error {
	if err := mt.describe(); err != nil {
		return err
	}
	var sched *spoolReader
	if mt.e.switches != nil {
		r, err := mt.e.switches.sp.reader()
		if err != nil {
			return err
		}
		sched = r
	}
	var pending []byte
	if sched != nil {
		pending = sched.next()
	}
	drain := func(before uint64, all bool) error {
		for pending != nil {
			sw := decodeSwitch(pending)
			if !all && sw.Time >= before {
				return nil
			}
			if err := mt.schedule(sw); err != nil {
				return err
			}
			pending = sched.next()
		}
		return nil
	}
	for si, sp := range mt.e.spools {
		err := sp.each(func(ev kernel.Event) error {
			if err := drain(ev.Time, false); err != nil {
				return err
			}
			return mt.logged(ev, si+1)
		})
		if err != nil {
			return err
		}
	}
	if err := drain(0, true); err != nil {
		return err
	}
	if sched != nil && sched.err != nil {
		return sched.err
	}
	end := mt.e.Kernel.Now() * 100
	for c, th := range mt.open {
		if th != nil {
			if err := mt.schedule(sim.Switch{Time: end / 100, CPU: c}); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteTrace writes the run's trace to w in Perfetto's protobuf format:
// per machine, a track per processor with thread-run slices (the
// scheduler's decisions, named after the workload's processes and
// threads) and every NT Kernel Logger event as an instant on the
// processor that took it; a process track per NT process and a thread
// track per NT thread, with their NT ids as Perfetto's pid and tid. It
// reads the spooled events and decisions back in one pass through
// bounded buffers. ok is false (and nothing is written) when no kernel
// logger session ran; events is the number of track events written.
func WriteTrace(w io.Writer, reg *Registry) (ok bool, events int64, err error) {
	t, err := WriteTraceLimited(w, reg, -1)
	return t.OK, t.Events, err
}

// DefaultMaxTrace is the largest trace written when none is given
// (proflab run --max-trace): 1 GiB, about 25 million events.
const DefaultMaxTrace = 1 << 30

// TraceInfo is what WriteTraceLimited wrote.
type TraceInfo struct {
	// OK is false (and nothing was written) when no kernel logger ran.
	OK bool
	// Events is the number of track events written, Bytes the size.
	Events, Bytes int64
	// Truncated: the trace stopped at its size limit, after its last
	// whole packet (a valid trace of the run's beginning).
	Truncated bool
}

// WriteTraceLimited is WriteTrace that writes at most max bytes (0:
// DefaultMaxTrace; negative: no limit), stopping after the last whole
// packet that fits: a run whose trace would take gigabytes cannot spend
// minutes and the disk writing it.
func WriteTraceLimited(w io.Writer, reg *Registry, max int64) (info TraceInfo, err error) {
	if max == 0 {
		max = DefaultMaxTrace
	}
	ok := false
	ms := reg.Machines()
	for _, e := range ms {
		if len(e.Sessions) > 0 {
			ok = true
		}
	}
	if !ok {
		return TraceInfo{}, nil
	}
	pw := newPerfettoWriter(w)
	pw.max = max
	for _, e := range ms {
		if len(e.Sessions) == 0 {
			continue
		}
		mt := &machineTrace{pw: pw, e: e, sy: newSymbols(e.Sim)}
		if err := mt.write(); errors.Is(err, errTraceFull) {
			info.Truncated = true
			break
		} else if err != nil {
			return TraceInfo{OK: true, Events: pw.events, Bytes: pw.written}, fmt.Errorf("cannot write the trace: %w", err)
		}
	}
	info.OK, info.Events, info.Bytes = true, pw.events, pw.written
	if err := pw.w.Flush(); err != nil {
		return info, fmt.Errorf("cannot write the trace: %w", err)
	}
	return info, nil
}
