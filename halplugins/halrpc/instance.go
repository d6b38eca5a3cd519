// The host side of a HAL instance: each hal.Instance call sent to the
// plugin on the instance's Session stream, or as a unary call to a plugin
// that does not serve Session (one fallback, in send), with its deadline
// and the classification of its failure.

package halrpc

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/proflab/proflab/halplugins/hal"
	pb "github.com/proflab/proflab/halplugins/halrpc/proto"
)

// NewInstance returns a new, unconfigured HAL instance served by the
// plugin. Its calls are bounded by the client's timeout.
func (c *Client) NewInstance() hal.Instance { return c.NewInstanceContext(context.Background()) }

// NewInstanceContext is NewInstance whose calls also end when ctx ends
// (the run's budget, Ctrl-C): such a call fails with ErrCanceled and
// leaves the plugin running.
func (c *Client) NewInstanceContext(ctx context.Context) hal.Instance {
	return c.NewInstanceIn(ctx, nil)
}

// NewInstanceIn is NewInstanceContext whose calls are ordered with those
// of the other instances of p (one machine's HALs): see Pipeline. A nil p
// makes every call as it is made.
func (c *Client) NewInstanceIn(ctx context.Context, p *Pipeline) hal.Instance {
	return &remote{c: c, ctx: ctx, id: fmt.Sprintf("i%d", c.next.Add(1)), pipe: p}
}

// RoundTrips is the number of calls sent to the plugin process so far,
// by every instance of this client: what crossing the process boundary
// has cost. Calls sent without waiting (a start, a stop, a close, a
// configure held back until the instance's first call) count too, though
// they share a wake-up of the plugin with another call.
func (c *Client) RoundTrips() int64 { return c.trips.Load() }

// callWithin runs fn under timeout and base and classifies its failure:
// base ending is ErrCanceled (the plugin keeps running), the timeout is
// ErrTimeout (the plugin is killed), a lost connection is ErrExited, and
// UNIMPLEMENTED is hal.ErrUnsupported.
func (c *Client) callWithin(base context.Context, timeout time.Duration, what string, fn func(ctx context.Context) error) error {
	if err := base.Err(); err != nil {
		return fmt.Errorf("%s: %w: %w", what, ErrCanceled, context.Cause(base))
	}
	ctx, cancel := context.WithTimeout(base, timeout)
	defer cancel()
	err := fn(ctx)
	if err == nil {
		return nil
	}
	code := status.Code(err)
	switch {
	case base.Err() != nil:
		return fmt.Errorf("%s: %w: %w", what, ErrCanceled, context.Cause(base))
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || code == codes.DeadlineExceeded:
		c.log.Warn("the plugin did not answer in time; killing it", "call", what, "timeout", timeout, "pid", c.pid)
		c.kill(0)
		return fmt.Errorf("%s: %w within %s; the plugin was killed (raise its timeout in the config if it needs longer)", what, ErrTimeout, timeout)
	case code == codes.Unavailable || code == codes.Canceled || c.pc.Exited():
		// The process is gone, or going. Which call finds it so, and
		// what the transport says, depend on timing (an answer lost with
		// the process); how it ended does not: wait for its exit, briefly,
		// and say that. The rest goes to the log.
		select {
		case <-c.done:
		case <-time.After(exitWait):
		}
		gone := c.Err()
		c.log.Warn("a call found the plugin process gone", "call", what, "transport", status.Convert(err).Message(), "pid", c.pid)
		c.Kill()
		if gone == nil {
			gone = ErrExited
		}
		return fmt.Errorf("%w; its last log lines are in the run log", gone)
	case code == codes.Unimplemented:
		return fmt.Errorf("%s: %w: %s", what, hal.ErrUnsupported, status.Convert(err).Message())
	}
	return fmt.Errorf("%s: %s", what, c.withoutStack(what, status.Convert(err).Message()))
}

// remote is one instance in a plugin process.
type remote struct {
	c    *Client
	ctx  context.Context
	id   string
	pipe *Pipeline // nil: every call is waited for as it is made
	s    *stream   // the instance's Session stream, once it has one
	// configure is the configure call ConfigureLazily holds back until the
	// instance's first call (nil: none held).
	configure *lazyConfigure
	closed    bool // Close was called
	// desc and abil are what the configure call answered for the Describe
	// and Abilities that follow it (nil: ask the plugin). Each is used once:
	// a later call asks the plugin again.
	desc *pb.Description
	abil *pb.AbilitiesResponse
}

var _ hal.Instance = (*remote)(nil)

// send sends a call. When the plugin serves Session it goes on the
// instance's stream and send returns without its answer; otherwise the
// unary RPC is made by wait. The first call on a client whose plugin has
// not answered on a stream yet is read at once, to learn whether it
// serves Session (then the unary RPC is used from now on).
func (r *remote) send(what string, call *pb.Call) *sent {
	if lc := r.configure; lc != nil {
		r.configure = nil
		r.pipe.add(r, r.send("configure", configureCall(lc.req)), lc.then)
	}
	unary := func(ctx context.Context) (*pb.Reply, error) { return r.c.unary(ctx, call) }
	if r.ctx.Err() != nil {
		return &sent{what: what, unary: unary} // wait says ErrCanceled; nothing is sent
	}
	r.c.trips.Add(1)
	served, unserved := r.c.sessionMode()
	if unserved {
		return &sent{what: what, unary: unary}
	}
	if r.s == nil || !r.s.usable() {
		s, err := r.c.takeStream()
		if err != nil {
			return &sent{what: what, err: err, done: true}
		}
		r.s = s
	}
	c := r.s.send(what, call)
	c.s = r.s
	if served {
		return c
	}
	c.final = r.c.callWithin(r.ctx, r.c.timeout, what, func(ctx context.Context) error {
		c.s.read(ctx, c)
		return c.err
	})
	if r.c.learned(c.err) {
		r.s.cancel()
		r.s = nil
		return &sent{what: what, unary: unary}
	}
	if c.final == nil {
		_, c.final = c.answer()
		if c.final != nil {
			c.final = r.c.classify(what, c.final)
		}
	}
	c.settled = true
	return c
}

// wait returns a sent call's answer, reading it (or making the unary
// call) under the call timeout and the instance's context.
func (r *remote) wait(c *sent) (*pb.Reply, error) {
	return r.waitWithin(r.ctx, r.c.timeout, c)
}

func (r *remote) waitWithin(base context.Context, timeout time.Duration, c *sent) (*pb.Reply, error) {
	if !c.settled {
		c.settled = true
		c.final = r.c.callWithin(base, timeout, c.what, func(ctx context.Context) error {
			if c.unary != nil {
				c.reply, c.err = c.unary(ctx)
				c.done = true
			} else if c.s != nil {
				c.s.read(ctx, c)
			}
			_, err := c.answer()
			return err
		})
	}
	if c.final != nil {
		return nil, c.final
	}
	return c.reply, nil
}

// classify is callWithin's classification of an answer's error.
func (c *Client) classify(what string, err error) error {
	return c.callWithin(context.Background(), c.timeout, what, func(context.Context) error { return err })
}

// do makes one call and waits for its answer; the calls the instance's
// pipeline holds are settled in between, so that their answers and this
// one's travel together.
func (r *remote) do(what string, call *pb.Call) (*pb.Reply, error) {
	c := r.send(what, call)
	_ = r.pipe.Settle() // failures reach their own callbacks
	return r.wait(c)
}

// later sends a call whose answer the caller does not need now: with a
// pipeline, on a plugin known to serve Session, then runs when the
// pipeline settles; otherwise the call is made, then runs at once and its
// error is returned.
func (r *remote) later(what string, call *pb.Call, then func(*pb.Reply, error) error) error {
	if served, _ := r.c.sessionMode(); r.pipe == nil || !served {
		return then(r.do(what, call))
	}
	if r.pipe.Pending() >= MaxPipelined {
		_ = r.pipe.Settle() // failures reach their own callbacks
	}
	r.pipe.add(r, r.send(what, call), then)
	return nil
}

func (r *remote) instance() *pb.InstanceRequest { return &pb.InstanceRequest{Instance: r.id} }

func configureCall(req *pb.ConfigureRequest) *pb.Call {
	return &pb.Call{Call: &pb.Call_Configure{Configure: req}}
}

func (r *remote) Configure(m hal.Machine, settings []byte) error {
	req := &pb.ConfigureRequest{Instance: r.id, Machine: machineToPB(m), Settings: settings}
	reply, err := r.do("configure", configureCall(req))
	r.desc, r.abil = reply.GetConfigure().GetDescription(), reply.GetConfigure().GetAbilities()
	return err
}

// lazyConfigure is a configure call held back by ConfigureLazily.
type lazyConfigure struct {
	req  *pb.ConfigureRequest
	then func(*pb.Reply, error) error
}

// ConfigureLazily is Configure for a host that already knows what the
// answer must say (the same plugin described the same machine and
// settings for another seed): the call is held back and sent just before
// the instance's first call, in the same wake-up of the plugin, and its
// answer is handed to then, in call order, when the instance's Pipeline
// settles. An instance the run never calls is never configured, and its
// Close sends nothing. ok is false when the answer described nothing (a
// plugin built before Configure answered with the description). Without
// a Pipeline, it is Configure followed by then.
func (r *remote) ConfigureLazily(m hal.Machine, settings []byte, then func(d hal.Description, a hal.Abilities, ok bool, err error) error) error {
	req := &pb.ConfigureRequest{Instance: r.id, Machine: machineToPB(m), Settings: settings}
	answered := func(reply *pb.Reply, err error) error {
		if err != nil {
			return then(hal.Description{}, hal.Abilities{}, false, err)
		}
		d, a := reply.GetConfigure().GetDescription(), reply.GetConfigure().GetAbilities()
		if d == nil || a == nil {
			return then(hal.Description{}, hal.Abilities{}, false, nil)
		}
		return then(descriptionFromPB(d), abilitiesFromPB(a), true, nil)
	}
	if r.pipe == nil {
		return answered(r.do("configure", configureCall(req)))
	}
	r.configure = &lazyConfigure{req: req, then: answered}
	return nil
}

func (r *remote) Describe() (hal.Description, error) {
	d := r.desc
	r.desc = nil
	if d == nil {
		req := r.instance()
		reply, err := r.do("describe", &pb.Call{Call: &pb.Call_Describe{Describe: req}})
		if err != nil {
			return hal.Description{}, err
		}
		d = reply.GetDescription()
	}
	return descriptionFromPB(d), nil
}

func (r *remote) Abilities() (hal.Abilities, error) {
	a := r.abil
	r.abil = nil
	if a == nil {
		req := r.instance()
		reply, err := r.do("abilities", &pb.Call{Call: &pb.Call_Abilities{Abilities: req}})
		if err != nil {
			return hal.Abilities{}, err
		}
		a = reply.GetAbilities()
	}
	return abilitiesFromPB(a), nil
}

// NumberOfCounters asks HalQueryProfileNumberOfCounters. A plugin built
// before the call existed answers UNIMPLEMENTED: it reports 0 counters,
// as a HAL that is not a hal.CounterReporter does in-process.
func (r *remote) NumberOfCounters() (uint32, error) {
	req := r.instance()
	reply, err := r.do("number of counters", &pb.Call{Call: &pb.Call_NumberOfCounters{NumberOfCounters: req}})
	if errors.Is(err, hal.ErrUnsupported) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return reply.GetCounters().GetCounters(), nil
}

// programmingOf reads a Programming answer.
func programmingOf(what string, reply *pb.Reply, err error) (hal.Programming, error) {
	if err != nil {
		return hal.Programming{}, err
	}
	out, err := programmingFromPB(reply.GetProgramming())
	if err != nil {
		return hal.Programming{}, fmt.Errorf("%s: nonsense answer: %w", what, err)
	}
	return out, nil
}

// programming makes a call answering Programming.
func (r *remote) programming(what string, call *pb.Call) (hal.Programming, error) {
	reply, err := r.do(what, call)
	return programmingOf(what, reply, err)
}

func (r *remote) Reset() (hal.Programming, error) {
	req := r.instance()
	return r.programming("reset", &pb.Call{Call: &pb.Call_Reset_{Reset_: req}})
}

func (r *remote) QuerySource(cpus []int, src hal.Source) ([]hal.SourceInfo, error) {
	req := &pb.SourceRequest{Instance: r.id, Cpus: cpusToPB(cpus), Source: uint32(src)}
	reply, err := r.do("query", &pb.Call{Call: &pb.Call_QuerySource{QuerySource: req}})
	if err != nil {
		return nil, err
	}
	info := reply.GetQuery().GetInfo()
	out := make([]hal.SourceInfo, len(info))
	for i, v := range info {
		out[i] = hal.SourceInfo{Supported: v.GetSupported(), Interval: v.GetInterval()}
	}
	return out, nil
}

func (r *remote) SetInterval(cpus []int, src hal.Source, interval uint32) ([]uint32, hal.Programming, error) {
	req := &pb.SetIntervalRequest{Instance: r.id, Cpus: cpusToPB(cpus), Source: uint32(src), Interval: interval}
	reply, err := r.do("set", &pb.Call{Call: &pb.Call_SetInterval{SetInterval: req}})
	if err != nil {
		return nil, hal.Programming{}, err
	}
	s := reply.GetSetInterval()
	p, err := programmingFromPB(s.GetProgramming())
	if err != nil {
		return nil, hal.Programming{}, fmt.Errorf("set: nonsense answer: %w", err)
	}
	return s.GetEffective(), p, nil
}

func (r *remote) startCall(cpus []int, src hal.Source) *pb.Call {
	req := &pb.SourceRequest{Instance: r.id, Cpus: cpusToPB(cpus), Source: uint32(src)}
	return &pb.Call{Call: &pb.Call_StartInterrupt{StartInterrupt: req}}
}

func (r *remote) stopCall(cpus []int, src hal.Source) *pb.Call {
	req := &pb.SourceRequest{Instance: r.id, Cpus: cpusToPB(cpus), Source: uint32(src)}
	return &pb.Call{Call: &pb.Call_StopInterrupt{StopInterrupt: req}}
}

func (r *remote) StartInterrupt(cpus []int, src hal.Source) (hal.Programming, error) {
	return r.programming("start", r.startCall(cpus, src))
}

func (r *remote) StopInterrupt(cpus []int, src hal.Source) (hal.Programming, error) {
	return r.programming("stop", r.stopCall(cpus, src))
}

// StartInterruptLater is StartInterrupt whose answer is handed to then,
// through the instance's Pipeline (see later). HalStartProfileInterrupt
// returns nothing to the kernel: only its programming matters, and only
// once the simulated processors run again.
func (r *remote) StartInterruptLater(cpus []int, src hal.Source, then func(hal.Programming, error) error) error {
	return r.later("start", r.startCall(cpus, src), func(reply *pb.Reply, err error) error { return then(programmingOf("start", reply, err)) })
}

// StopInterruptLater is StopInterrupt as StartInterruptLater is
// StartInterrupt.
func (r *remote) StopInterruptLater(cpus []int, src hal.Source, then func(hal.Programming, error) error) error {
	return r.later("stop", r.stopCall(cpus, src), func(reply *pb.Reply, err error) error { return then(programmingOf("stop", reply, err)) })
}

func (r *remote) RefillTimer(cpus []int) (hal.Programming, error) {
	req := &pb.CPUsRequest{Instance: r.id, Cpus: cpusToPB(cpus)}
	return r.programming("refill timer", &pb.Call{Call: &pb.Call_RefillTimer{RefillTimer: req}})
}

func (r *remote) ControlArea(cpus []int, present bool) (hal.Programming, error) {
	req := &pb.ControlAreaRequest{Instance: r.id, Cpus: cpusToPB(cpus), Present: present}
	return r.programming("control area", &pb.Call{Call: &pb.Call_ControlArea{ControlArea: req}})
}

func (r *remote) Interrupts(batch []hal.Interrupt) (hal.Programming, error) {
	req := &pb.InterruptsRequest{Instance: r.id, Packed: hal.PackInterrupts(batch)}
	return r.programming("interrupts", &pb.Call{Call: &pb.Call_Interrupts{Interrupts: req}})
}

// closeTimeout bounds the release of an instance: the plugin has only to
// forget it, so a plugin that does not answer by then is frozen (and is
// killed, as after any call that times out).
const closeTimeout = time.Second

// Close releases the instance in the plugin. It is called when the run
// that used the instance has ended, often because its context ended (a
// budget, Ctrl-C, or simply the run's own cleanup), so it is not bound by
// that context, or the plugin would keep every instance of every run.
// When the plugin serves Session, the release goes on the instance's
// stream without waiting for its answer, and the stream is kept for the
// client's next instance, which reads that answer (under its own
// deadline) before its first; otherwise it is a call with a short
// deadline of its own.
func (r *remote) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.configure != nil { // never configured in the plugin: nothing to release
		r.configure = nil
		return nil
	}
	if r.c.Exited() {
		return nil
	}
	req := r.instance()
	call := &pb.Call{Call: &pb.Call_Close{Close: req}}
	if served, _ := r.c.sessionMode(); served && r.s != nil && r.s.usable() {
		r.c.trips.Add(1)
		r.s.send("close", call)
		r.c.putStream(r.s)
		r.s = nil
		return nil
	}
	if r.s != nil {
		r.s.cancel()
		r.s = nil
	}
	c := &sent{what: "close", unary: func(ctx context.Context) (*pb.Reply, error) { return r.c.unary(ctx, call) }}
	r.c.trips.Add(1)
	_, err := r.waitWithin(context.WithoutCancel(r.ctx), min(closeTimeout, r.c.timeout), c)
	return err
}

// stackRe finds a Go goroutine dump in a plugin's error message: the
// stack of a HAL that panicked (the SDK's hal.PanicError, which the
// server sends after its message).
var stackRe = regexp.MustCompile(`\n+goroutine \d+ \[[^\]\n]*\]:\n`)

// withoutStack is a plugin's error message msg for the call what without
// the goroutine dump it may end with, which goes to the log (the run's,
// as the call is the run's): its goroutine ids and addresses differ from
// one process to the next, and an error ends up in a run's results.
func (c *Client) withoutStack(what, msg string) string {
	loc := stackRe.FindStringIndex(msg)
	if loc == nil {
		return msg
	}
	c.log.Error("the plugin's HAL panicked", "call", what, "stack", msg[loc[0]:])
	return msg[:loc[0]]
}
