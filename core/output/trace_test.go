package output_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// decoded is a Perfetto trace read back with protowire, independently of
// the writer: the tracks, and the events per track with their names and
// arguments resolved through the interning tables.
type decoded struct {
	tracks map[uint64]*dTrack
	order  []uint64
}

type dTrack struct {
	name        string
	parent      uint64
	pid, tid    int64
	hasProcess  bool
	processName string
	threadName  string
	events      []dEvent
}

type dEvent struct {
	ts   uint64
	typ  uint64
	name string
	args map[string]any
}

type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

func fields(t *testing.T, b []byte) []field {
	t.Helper()
	var out []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			t.Fatalf("unexpected wire type %v for field %d", typ, num)
		}
		if n < 0 {
			t.Fatalf("bad field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		out = append(out, f)
	}
	return out
}

func decodeTrace(t *testing.T, data []byte) *decoded {
	t.Helper()
	d := &decoded{tracks: map[uint64]*dTrack{}}
	intern := [3]map[uint64]string{{}, {}, {}}
	internIdx := map[protowire.Number]int{2: 0, 3: 1, 29: 2}
	cleared := false
	for _, pf := range fields(t, data) {
		if pf.num != 1 {
			t.Fatalf("Trace field %d, want only packets (1)", pf.num)
		}
		var ts uint64
		var hasTS bool
		var ev []byte
		var seq, flags uint64
		for _, f := range fields(t, pf.b) {
			switch f.num {
			case 8:
				ts, hasTS = f.v, true
			case 10:
				seq = f.v
			case 13:
				flags = f.v
			case 12:
				for _, it := range fields(t, f.b) {
					k, ok := internIdx[it.num]
					if !ok {
						t.Fatalf("interned data field %d", it.num)
					}
					var iid uint64
					var name string
					for _, x := range fields(t, it.b) {
						if x.num == 1 {
							iid = x.v
						} else if x.num == 2 {
							name = string(x.b)
						}
					}
					if _, dup := intern[k][iid]; dup || iid == 0 {
						t.Fatalf("iid %d of table %d defined twice or zero", iid, k)
					}
					intern[k][iid] = name
				}
			case 60:
				tr := &dTrack{}
				var uuid uint64
				for _, x := range fields(t, f.b) {
					switch x.num {
					case 1:
						uuid = x.v
					case 2:
						tr.name = string(x.b)
					case 5:
						tr.parent = x.v
					case 3:
						tr.hasProcess = true
						for _, y := range fields(t, x.b) {
							if y.num == 1 {
								tr.pid = int64(y.v)
							} else if y.num == 6 {
								tr.processName = string(y.b)
							}
						}
					case 4:
						for _, y := range fields(t, x.b) {
							switch y.num {
							case 1:
								tr.pid = int64(y.v)
							case 2:
								tr.tid = int64(y.v)
							case 5:
								tr.threadName = string(y.b)
							}
						}
					}
				}
				if _, dup := d.tracks[uuid]; dup || uuid == 0 {
					t.Fatalf("track uuid %d described twice or zero", uuid)
				}
				d.tracks[uuid] = tr
				d.order = append(d.order, uuid)
			case 11:
				ev = f.b
			}
		}
		if seq != 1 {
			t.Fatalf("packet on sequence %d, want 1", seq)
		}
		if flags&1 != 0 {
			cleared = true
		}
		if ev == nil {
			continue
		}
		if !cleared || flags&2 == 0 {
			t.Fatal("a track event before the sequence's state was cleared, or without SEQ_NEEDS_INCREMENTAL_STATE")
		}
		if !hasTS {
			t.Fatal("a track event without a timestamp")
		}
		e := dEvent{ts: ts, args: map[string]any{}}
		var track uint64
		for _, f := range fields(t, ev) {
			switch f.num {
			case 9:
				e.typ = f.v
			case 11:
				track = f.v
			case 10:
				name, ok := intern[0][f.v]
				if !ok {
					t.Fatalf("event name iid %d used before it was interned", f.v)
				}
				e.name = name
			case 4:
				var an string
				var val any
				for _, x := range fields(t, f.b) {
					switch x.num {
					case 1:
						an = intern[1][x.v]
					case 2:
						val = x.v != 0
					case 3, 7:
						val = x.v
					case 17:
						s, ok := intern[2][x.v]
						if !ok {
							t.Fatalf("string iid %d used before it was interned", x.v)
						}
						val = s
					}
				}
				if an == "" {
					t.Fatal("an annotation without an interned name")
				}
				e.args[an] = val
			}
		}
		tr, ok := d.tracks[track]
		if !ok {
			t.Fatalf("event on track %d, not described before", track)
		}
		tr.events = append(tr.events, e)
	}
	return d
}

// traceLab runs two processes on 2 processors (one thread each pinned to
// processor 0 and a busy-half thread that moves) with the kernel logger
// tracing sampled profiles, and returns the trace and the logged events.
func traceLab(t *testing.T) ([]byte, int, *labtest.Lab) {
	t.Helper()
	reg, events, l := traceRegistry(t)
	var buf bytes.Buffer
	ok, _, err := output.WriteTrace(&buf, reg)
	if err != nil || !ok {
		t.Fatalf("WriteTrace: %v %v", ok, err)
	}
	return buf.Bytes(), events, l
}

// traceRegistry runs the trace tests' lab and returns its outputs, the
// number of events its logger took, and the lab.
func traceRegistry(t *testing.T) (*output.Registry, int, *labtest.Lab) {
	t.Helper()
	l, reg, s := loggedLab(t, 2, 4)
	l.SetInterval(t, nt.ProfileTime, 2441)
	w := labtest.ThreeFuncs(l.P)
	w.Processes[0].Threads = []workload.Thread{{CPU: 0, Affinity: 1}, {CPU: 1, Busy: 0.5}}
	other := l.M.NewProcess("other", kernel.Token{Integrity: kernel.IntegrityMedium})
	w.Processes = append(w.Processes, workload.Process{Name: "other", Proc: other, Functions: []workload.Function{{Name: "spin", Base: 0x20000, Size: 0x100, Weight: 1}},
		Threads: []workload.Thread{{CPU: 1, Busy: 0.7}}})
	if _, err := l.Sim.Run(100_000, w); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	return reg, len(s.Events()), l
}

// TestTraceStructure decodes the Perfetto trace and checks what a user
// opening it sees: a track per processor under the machine, a process
// and thread track per NT process and thread with their NT ids and
// workload names, thread-run slices that nest (begin and end alternate)
// with monotonic timestamps on every track, and every logged event as an
// instant on its processor's track.
func TestTraceStructure(t *testing.T) {
	data, logged, l := traceLab(t)
	d := decodeTrace(t, data)
	var machine uint64
	cpus := map[string]*dTrack{}
	threads := map[int64]*dTrack{}
	processes := map[int64]*dTrack{}
	for _, id := range d.order {
		tr := d.tracks[id]
		switch {
		case tr.hasProcess:
			processes[tr.pid] = tr
		case tr.tid != 0:
			threads[tr.tid] = tr
		case tr.parent == 0:
			machine = id
		default:
			cpus[tr.name] = tr
			if tr.parent != machine {
				t.Errorf("track %q is not under the machine's", tr.name)
			}
		}
	}
	if d.tracks[machine] == nil || len(cpus) != 2 || cpus["CPU 0"] == nil || cpus["CPU 1"] == nil {
		t.Fatalf("tracks: machine %v, processors %v", d.tracks[machine], cpus)
	}
	for _, p := range l.M.Processes() {
		pt := processes[int64(p.ID())]
		if pt == nil || pt.processName != p.Name() {
			t.Errorf("process %d (%s): track %+v", p.ID(), p.Name(), pt)
		}
		for i, th := range p.Threads() {
			tt := threads[int64(th.ID())]
			if want := fmt.Sprintf("%s thread %d", p.Name(), i+1); tt == nil || tt.pid != int64(p.ID()) || tt.threadName != want {
				t.Errorf("thread %d: track %+v, want pid %d name %q", th.ID(), tt, p.ID(), want)
			}
		}
	}
	instants, slices := 0, 0
	ran := map[string]bool{}
	for _, id := range d.order {
		tr := d.tracks[id]
		depth := 0
		var last uint64
		for i, e := range tr.events {
			if i > 0 && e.ts < last {
				t.Fatalf("track %q: timestamp %d after %d", tr.name+tr.threadName, e.ts, last)
			}
			last = e.ts
			switch e.typ {
			case 1:
				depth++
				slices++
				if depth > 1 {
					t.Fatalf("track %q: a slice begins inside another at %d", tr.name+tr.threadName, e.ts)
				}
				if tr.name != "" {
					ran[e.name] = true
					if e.args["ThreadId"] == nil || e.args["ProcessId"] == nil {
						t.Errorf("thread-run slice %q without ids: %v", e.name, e.args)
					}
				}
			case 2:
				if depth--; depth < 0 {
					t.Fatalf("track %q: a slice ends that did not begin, at %d", tr.name+tr.threadName, e.ts)
				}
			case 3:
				instants++
				if tr.parent != machine {
					t.Errorf("instant %q on track %q, not a processor's", e.name, tr.name+tr.threadName)
				}
				if e.name == "SampledProfile" && (e.args["InstructionPointer"] == nil || e.args["ThreadId"] == nil) {
					t.Errorf("sample without its fields: %v", e.args)
				}
			default:
				t.Fatalf("event type %d", e.typ)
			}
		}
		if depth != 0 {
			t.Errorf("track %q ends with a slice open", tr.name+tr.threadName)
		}
	}
	if instants != logged || logged == 0 {
		t.Errorf("%d instants for %d logged events", instants, logged)
	}
	for _, want := range []string{"app thread 1", "app thread 2", "other thread 1"} {
		if !ran[want] {
			t.Errorf("no thread-run slice of %q on a processor (have %v)", want, ran)
		}
	}
	if slices == 0 {
		t.Error("no slices")
	}
}

// TestTraceSize measures bytes per event of a busy trace (the figure
// issue 9 budgets: a 60 s, 4-processor, 8 kHz trace under 100 MB is at
// most 50 bytes per sample with the slices).
func TestTraceSize(t *testing.T) {
	data, logged, _ := traceLab(t)
	per := float64(len(data)) / float64(logged)
	t.Logf("%d bytes for %d logged events: %.1f bytes per event (slices included)", len(data), logged, per)
	if per > 50 {
		t.Errorf("%.1f bytes per event: a 60 s 4-processor 8 kHz trace would pass 100 MB", per)
	}
}

func TestTraceFileWritten(t *testing.T) {
	dir := t.TempDir()
	runLab(t, dir)
	data, err := os.ReadFile(filepath.Join(dir, output.TraceFile))
	if err != nil {
		t.Fatal(err)
	}
	d := decodeTrace(t, data)
	n := 0
	for _, tr := range d.tracks {
		for _, e := range tr.events {
			if e.name == "SampledProfile" {
				n++
			}
		}
	}
	if n == 0 {
		t.Error("no SampledProfile instants in", output.TraceFile)
	}
}

// TestSessionEventsSpooled: a registered session keeps its events in the
// spool, where Events reads them back whole, in order; Close releases
// them.
func TestSessionEventsSpooled(t *testing.T) {
	l := labtest.Inproc(t, 1, 1)
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	s, err := l.M.StartKernelLogger(true)
	if err != nil {
		t.Fatal(err)
	}
	l.SetInterval(t, nt.ProfileTime, 1221) // logged (0x0F48) before the session is registered
	before := len(s.Events())
	reg.AddSession(l.M, s)
	if _, err := l.Sim.Run(200_000, labtest.ThreeFuncs(l.P)); err != nil {
		t.Fatal(err)
	}
	evs := s.Events()
	if before == 0 || len(evs) < 1000 || evs[0].Hook != nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL {
		t.Fatalf("%d events (%d before registration), first %+v", len(evs), before, evs[0])
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Time < evs[i-1].Time {
			t.Fatalf("event %d at %d after %d", i, evs[i].Time, evs[i-1].Time)
		}
	}
	if last := evs[len(evs)-1]; last.Hook != nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE || last.InstructionPointer < 0x10000 || last.Count != 1 {
		t.Errorf("last event read back as %+v", last)
	}
	reg.Close()
	if n := len(s.Events()); n != 0 {
		t.Errorf("%d events after Close", n)
	}
}

// A trace cut at its size limit is still a trace: whole packets only,
// every interned name defined before use (decodeTrace checks both), of
// at most the limit's bytes, and a prefix of the whole trace.
func TestTraceCutAtItsLimit(t *testing.T) {
	reg, _, _ := traceRegistry(t)
	var all bytes.Buffer
	if _, err := output.WriteTraceLimited(&all, reg, -1); err != nil {
		t.Fatal(err)
	}
	whole := all.Bytes()
	limit := int64(len(whole) / 3)
	var b bytes.Buffer
	info, err := output.WriteTraceLimited(&b, reg, limit)
	if err != nil || !info.OK || !info.Truncated || int64(b.Len()) > limit || info.Bytes != int64(b.Len()) {
		t.Fatalf("cut at %d: %+v, %v (%d bytes written)", limit, info, err, b.Len())
	}
	if !bytes.HasPrefix(whole, b.Bytes()) {
		t.Error("the cut trace is not the whole trace's beginning")
	}
	decodeTrace(t, b.Bytes())
	if info, err := output.WriteTraceLimited(io.Discard, reg, -1); err != nil || info.Truncated || info.Bytes != int64(len(whole)) {
		t.Errorf("no limit: %+v, %v", info, err)
	}
}

// A spooled session reads its events back one by one (Cursor), the same
// events Events returns, and counts them without reading (Count).
func TestSpooledEventsCursor(t *testing.T) {
	reg, events, _ := traceRegistry(t)
	s := reg.Machines()[0].Sessions[0]
	all := s.Events()
	if s.Count() != events || len(all) != events || events == 0 {
		t.Fatalf("Count %d, Events %d, logged %d", s.Count(), len(all), events)
	}
	cur := s.Cursor()
	n := 0
	for e, ok := cur.Next(); ok; e, ok = cur.Next() {
		if !reflect.DeepEqual(e, all[n]) {
			t.Fatalf("event %d: %+v, Events has %+v", n, e, all[n])
		}
		n++
	}
	if cur.Err() != nil || n != events {
		t.Errorf("the cursor read %d of %d events (%v)", n, events, cur.Err())
	}
}
