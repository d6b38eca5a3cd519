package output

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"os"

	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/kernel"
)

// spool is an append-only sequence of fixed-size records written through
// a bounded buffer to a temporary file: what a long run produces goes to
// disk as it is made instead of growing the process's memory. The file is
// unlinked as soon as it is created (where the system allows), so nothing
// is left behind; when no file can be made the records stay in memory.
type spool struct {
	size int
	f    *os.File
	w    *bufio.Writer
	mem  []byte // when there is no file
	n    int64
	err  error
}

const spoolBuffer = 64 << 10

func newSpool(size int) *spool { return &spool{size: size} }

func (s *spool) append(rec []byte) {
	if s.err == errSpoolClosed {
		return
	}
	if s.f == nil && s.mem == nil && s.err == nil {
		f, err := os.CreateTemp("", "proflab-spool-*")
		if err == nil {
			_ = os.Remove(f.Name())
			s.f, s.w = f, bufio.NewWriterSize(f, spoolBuffer)
		} else {
			s.mem = []byte{}
		}
	}
	s.n++
	if s.f == nil {
		s.mem = append(s.mem, rec...)
		return
	}
	if _, err := s.w.Write(rec); err != nil && s.err == nil {
		s.err = err
	}
}

// close releases the file; the spool then holds nothing.
func (s *spool) close() {
	if s.f != nil {
		_ = s.f.Close()
	}
	s.f, s.w, s.mem, s.n = nil, nil, nil, 0
	s.err = errSpoolClosed
}

var errSpoolClosed = errors.New("the run's spooled events were released")

// each calls fn with every record in order (rec is only valid during the
// call).
func (s *spool) each(fn func(rec []byte) error) error {
	if s.err != nil {
		return s.err
	}
	var r io.Reader
	switch {
	case s.f != nil:
		if err := s.w.Flush(); err != nil {
			return err
		}
		r = bufio.NewReaderSize(io.NewSectionReader(s.f, 0, s.n*int64(s.size)), spoolBuffer)
	case s.mem != nil:
		r = &sliceReader{b: s.mem}
	default:
		return nil
	}
	rec := make([]byte, s.size)
	for range s.n {
		if _, err := io.ReadFull(r, rec); err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// reader reads the records back one by one.
func (s *spool) reader() (*spoolReader, error) {
	if s.err != nil {
		return nil, s.err
	}
	r := &spoolReader{left: s.n, rec: make([]byte, s.size)}
	switch {
	case s.f != nil:
		if err := s.w.Flush(); err != nil {
			return nil, err
		}
		r.r = bufio.NewReaderSize(io.NewSectionReader(s.f, 0, s.n*int64(s.size)), spoolBuffer)
	case s.mem != nil:
		r.r = &sliceReader{b: s.mem}
	default:
		r.left = 0
	}
	return r, nil
}

// spoolReader is a pull reader of a spool's records.
type spoolReader struct {
	r    io.Reader
	left int64
	rec  []byte
	many []byte // nextN's
	err  error
}

// next returns the next record, or nil at the end (or on an error, kept
// in err).
func (r *spoolReader) next() []byte {
	if r.left == 0 || r.err != nil {
		return nil
	}
	if _, err := io.ReadFull(r.r, r.rec); err != nil {
		r.err = err
		return nil
	}
	r.left--
	return r.rec
}

// nextN returns the n next records as one slice (valid until the next
// call), or nil when fewer are left (or on an error, kept in err).
func (r *spoolReader) nextN(n int) []byte {
	if r.left < int64(n) || r.err != nil {
		return nil
	}
	size := len(r.rec)
	if cap(r.many) < n*size {
		r.many = make([]byte, n*size)
	}
	b := r.many[:n*size]
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.err = err
		return nil
	}
	r.left -= int64(n)
	return b
}

type sliceReader struct{ b []byte }

func (r *sliceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// eventSize is an NT Kernel Logger event's spooled size; a stack
// walk's frames (at most kernel.MaxStackWalkFrames) go to a second
// spool of 8-byte records, in the same order, their number in the
// event's record.
const eventSize = 46

// eventSpool keeps a trace session's events (kernel.EventStore) on disk.
type eventSpool struct {
	sp     *spool
	frames *spool
	buf    [eventSize]byte
}

var _ kernel.EventStore = (*eventSpool)(nil)

func newEventSpool() *eventSpool {
	return &eventSpool{sp: newSpool(eventSize), frames: newSpool(8)}
}

// Append implements kernel.EventStore.
func (s *eventSpool) Append(e kernel.Event) {
	b := s.buf[:]
	le := binary.LittleEndian
	le.PutUint16(b[0:], e.Hook)
	le.PutUint16(b[2:], uint16(e.CPU))
	le.PutUint64(b[4:], e.Time)
	le.PutUint64(b[12:], e.InstructionPointer)
	le.PutUint32(b[20:], e.ThreadId)
	le.PutUint16(b[24:], e.Count)
	var flags byte
	if e.ExecutingIsr {
		flags |= 1
	}
	if e.ExecutingDpc {
		flags |= 2
	}
	b[26] = flags
	le.PutUint32(b[27:], e.Source)
	le.PutUint32(b[31:], e.NewInterval)
	le.PutUint32(b[35:], e.OldInterval)
	le.PutUint16(b[39:], e.ProfileSource)
	frames := e.Frames[:min(len(e.Frames), kernel.MaxStackWalkFrames)]
	b[41] = byte(len(frames))
	le.PutUint32(b[42:], e.ProcessId)
	s.sp.append(b)
	var fb [8]byte
	for _, f := range frames {
		le.PutUint64(fb[:], f)
		s.frames.append(fb[:])
	}
}

// decodeEvent decodes a spooled event; its frames, b[41] of them, are
// the caller's to read (next gives each).
func decodeEvent(b []byte) kernel.Event {
	le := binary.LittleEndian
	return kernel.Event{Hook: le.Uint16(b[0:]), CPU: int(le.Uint16(b[2:])), Time: le.Uint64(b[4:]),
		InstructionPointer: le.Uint64(b[12:]), ThreadId: le.Uint32(b[20:]), Count: le.Uint16(b[24:]),
		ExecutingIsr: b[26]&1 != 0, ExecutingDpc: b[26]&2 != 0,
		Source: le.Uint32(b[27:]), NewInterval: le.Uint32(b[31:]), OldInterval: le.Uint32(b[35:]), ProfileSource: le.Uint16(b[39:]),
		ProcessId: le.Uint32(b[42:])}
}

// frameReader reads a spool's frames back alongside its events.
type frameReader struct {
	r   *spoolReader
	err error
}

func (s *eventSpool) frameReader() *frameReader {
	r, err := s.frames.reader()
	return &frameReader{r: r, err: err}
}

// read appends the n next frames to dst.
func (fr *frameReader) read(dst []uint64, n int) []uint64 {
	if fr.err != nil {
		return dst
	}
	b := fr.r.nextN(n)
	if b == nil {
		fr.err = fr.r.err
		if fr.err == nil {
			fr.err = errors.New("the spooled stack frames ended early")
		}
		return dst
	}
	for i := range n {
		dst = append(dst, binary.LittleEndian.Uint64(b[8*i:]))
	}
	return dst
}

// Events implements kernel.EventStore: it reads every event back.
func (s *eventSpool) Events() []kernel.Event {
	out := make([]kernel.Event, 0, s.sp.n)
	fr := s.frameReader()
	_ = s.sp.each(func(b []byte) error {
		e := decodeEvent(b)
		if b[41] > 0 {
			e.Frames = fr.read(nil, int(b[41]))
		}
		out = append(out, e)
		return nil
	})
	return out
}

// Len implements kernel.EventStore.
func (s *eventSpool) Len() int { return int(s.sp.n) }

// Cursor implements kernel.EventStore: the events spooled so far, read
// back through a bounded buffer.
func (s *eventSpool) Cursor() kernel.EventCursor {
	r, err := s.sp.reader()
	return &eventCursor{r: r, err: err, fr: s.frameReader()}
}

// eventCursor reads a spool's events one by one.
type eventCursor struct {
	r   *spoolReader
	fr  *frameReader
	err error
}

func (c *eventCursor) Next() (kernel.Event, bool) {
	if c.err != nil || c.r == nil {
		return kernel.Event{}, false
	}
	b := c.r.next()
	if b == nil {
		c.err = c.r.err
		return kernel.Event{}, false
	}
	e := decodeEvent(b)
	if b[41] > 0 {
		e.Frames = c.fr.read(nil, int(b[41]))
		if c.fr.err != nil {
			c.err = c.fr.err
			return kernel.Event{}, false
		}
	}
	return e, true
}

func (c *eventCursor) Err() error { return c.err }

// each calls fn with every event in order; an event's Frames are only
// valid during the call.
func (s *eventSpool) each(fn func(kernel.Event) error) error {
	fr := s.frameReader()
	var frames []uint64
	err := s.sp.each(func(b []byte) error {
		e := decodeEvent(b)
		if b[41] > 0 {
			frames = fr.read(frames[:0], int(b[41]))
			e.Frames = frames
		}
		return fn(e)
	})
	if err == nil {
		err = fr.err
	}
	return err
}

// switchSize is a scheduling decision's spooled size.
const switchSize = 18

// switchSpool keeps a simulator's scheduling decisions on disk.
type switchSpool struct {
	sp  *spool
	buf [switchSize]byte
}

func newSwitchSpool() *switchSpool { return &switchSpool{sp: newSpool(switchSize)} }

func (s *switchSpool) add(sw sim.Switch) {
	b := s.buf[:]
	le := binary.LittleEndian
	le.PutUint64(b[0:], sw.Time)
	le.PutUint16(b[8:], uint16(sw.CPU))
	le.PutUint32(b[10:], sw.Process)
	le.PutUint32(b[14:], sw.Thread)
	s.sp.append(b)
}

func decodeSwitch(b []byte) sim.Switch {
	le := binary.LittleEndian
	return sim.Switch{Time: le.Uint64(b[0:]), CPU: int(le.Uint16(b[8:])), Process: le.Uint32(b[10:]), Thread: le.Uint32(b[14:])}
}
