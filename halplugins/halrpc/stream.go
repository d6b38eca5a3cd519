package halrpc

import (
	"context"
	"errors"
	"io"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/proflab/proflab/halplugins/halrpc/proto"
)

// This file is the host's side of the Session stream (session.go has the
// plugin's): an instance sends its calls on a stream of its own and reads
// the answers in the order it sent the calls, so it may send a call
// before reading the answers of the calls before it (Pipeline). A plugin
// that does not serve Session is called with the unary RPCs.

// maxIdleStreams bounds the streams a client keeps open between
// instances: as many as instances it has had open at once, up to this.
const maxIdleStreams = 8

// sent is one call sent to the plugin, answered or not yet.
type sent struct {
	what  string
	s     *stream                                  // the stream it went on; nil for a unary call
	unary func(context.Context) (*pb.Reply, error) // the unary RPC to make instead (Client.unary), when not sent on a stream
	reply *pb.Reply
	err   error
	done  bool // reply or err is set

	settled bool  // final is set: the answer was read and classified
	final   error // the classified failure (remote.wait)
}

// answer returns the call's answer: its reply, or the error the unary RPC
// would have returned (a status error).
func (c *sent) answer() (*pb.Reply, error) {
	if c.err != nil {
		return nil, c.err
	}
	if e := c.reply.GetError(); e != nil {
		return nil, status.Error(codes.Code(e.GetCode()), e.GetMessage())
	}
	return c.reply, nil
}

// stream is one open Session stream. Its calls are answered in the order
// they were sent; inflight holds those not yet read.
type stream struct {
	mu       sync.Mutex
	st       pb.HAL_SessionClient
	cancel   context.CancelFunc
	inflight []*sent
	broken   error // the stream failed; every later call fails with it
}

// send sends call; its answer is read by read.
func (s *stream) send(what string, call *pb.Call) *sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &sent{what: what}
	if s.broken != nil {
		c.err, c.done = s.broken, true
		return c
	}
	// A Send that fails with io.EOF means the stream has ended; why
	// (UNIMPLEMENTED, a plugin gone) is what the next Recv returns.
	if err := s.st.Send(call); err != nil && !errors.Is(err, io.EOF) {
		s.fail(err)
		c.err, c.done = err, true
		return c
	}
	s.inflight = append(s.inflight, c)
	return c
}

// read reads answers, in order, until c has its own. It ends when ctx
// ends: the stream is then cancelled (its state is unknown) and every
// call still in flight fails.
func (s *stream) read(ctx context.Context, c *sent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.done {
		return
	}
	stop := context.AfterFunc(ctx, s.cancel)
	defer stop()
	for !c.done {
		reply, err := s.st.Recv()
		if ctx.Err() != nil {
			s.fail(ctx.Err())
			return
		}
		if errors.Is(err, io.EOF) {
			err = status.Error(codes.Internal, "the plugin ended its session without answering")
		}
		if err != nil {
			s.fail(err)
			return
		}
		head := s.inflight[0]
		s.inflight = s.inflight[1:]
		head.reply, head.done = reply, true
	}
}

// fail breaks the stream: every call in flight fails with err.
func (s *stream) fail(err error) {
	if s.broken == nil {
		s.broken = err
	}
	for _, c := range s.inflight {
		c.err, c.done = s.broken, true
	}
	s.inflight = nil
	s.cancel()
}

func (s *stream) usable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken == nil
}

// streams are a client's open Session streams not in use by an instance.
type streams struct {
	mu       sync.Mutex
	idle     []*stream
	served   bool // the plugin has answered a call on a stream
	unserved bool // the plugin answered UNIMPLEMENTED: unary calls only
	closed   bool
}

// sessionMode says how the client calls its plugin: on streams (served),
// with unary RPCs (unserved), or not known yet (neither).
func (c *Client) sessionMode() (served, unserved bool) {
	c.streams.mu.Lock()
	defer c.streams.mu.Unlock()
	return c.streams.served, c.streams.unserved
}

// takeStream returns an idle stream, or opens one. Answers still in
// flight on an idle stream (an instance's last calls, sent without
// waiting) are read, and dropped, before the new user's.
func (c *Client) takeStream() (*stream, error) {
	ss := &c.streams
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return nil, status.Error(codes.Unavailable, "the plugin is being stopped")
	}
	for n := len(ss.idle); n > 0; n = len(ss.idle) {
		s := ss.idle[n-1]
		ss.idle = ss.idle[:n-1]
		if s.usable() {
			ss.mu.Unlock()
			return s, nil
		}
	}
	ss.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := c.rpc.Session(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	return &stream{st: st, cancel: cancel}, nil
}

// putStream keeps a usable stream for the next instance.
func (c *Client) putStream(s *stream) {
	ss := &c.streams
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed || len(ss.idle) >= maxIdleStreams || !s.usable() {
		s.cancel()
		return
	}
	ss.idle = append(ss.idle, s)
}

// closeStreams ends every idle stream (the process is being stopped);
// later calls open none.
func (c *Client) closeStreams() {
	ss := &c.streams
	ss.mu.Lock()
	idle := ss.idle
	ss.idle, ss.closed = nil, true
	ss.mu.Unlock()
	for _, s := range idle {
		s.cancel()
	}
}

// learned records what the plugin's first answer on a stream said about
// Session: served, or (UNIMPLEMENTED before any answer) not.
func (c *Client) learned(err error) (unserved bool) {
	ss := &c.streams
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if err == nil {
		ss.served = true
		return false
	}
	if status.Code(err) == codes.Unimplemented && !ss.served {
		ss.unserved = true
		return true
	}
	return false
}
