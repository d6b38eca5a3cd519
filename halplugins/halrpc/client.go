package halrpc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/proflab/proflab/halplugins/hal"
	pb "github.com/proflab/proflab/halplugins/halrpc/proto"
)

// DefaultTimeout is how long a call may take when Options.Timeout is 0.
const DefaultTimeout = 10 * time.Second

// ShutdownTimeout is how long Kill lets a plugin exit gracefully (go-plugin's
// shutdown call, then its exit) before it kills the plugin's process group.
const ShutdownTimeout = 2 * time.Second

// killWait bounds the wait for go-plugin's clean-up after the process group
// was killed; past it Kill returns anyway (and logs why).
const killWait = 5 * time.Second

// exitPoll is how often a client looks whether its process has exited.
const exitPoll = 50 * time.Millisecond

// Errors a call can wrap; test with errors.Is.
var (
	// ErrTimeout: the plugin did not answer within the timeout (it is
	// then killed).
	ErrTimeout = errors.New("the plugin did not answer in time")
	// ErrExited: the plugin process is gone (it crashed or was killed).
	ErrExited = errors.New("the plugin process exited")
	// ErrCanceled: the caller's context ended during the call (Ctrl-C, the
	// run's time budget); the plugin is not at fault and keeps running.
	ErrCanceled = errors.New("the call was cancelled")
	// ErrProtocol: the plugin speaks another protocol version.
	ErrProtocol = errors.New("the plugin speaks another HAL protocol version")
	// ErrChecksum: the executable's sha256 is not the configured one.
	ErrChecksum = errors.New("the plugin executable's sha256 does not match the configuration")
)

// Options start a plugin process.
type Options struct {
	// Path is the plugin executable.
	Path string
	// Args are extra command-line arguments (rarely needed).
	Args []string
	// SHA256 is the expected sha256 of the executable, in hex; empty skips
	// the check. It is verified before the executable runs.
	SHA256 string
	// Timeout bounds each call (DefaultTimeout if 0). A call that takes
	// longer kills the plugin.
	Timeout time.Duration
	// StartTimeout bounds the start, handshake and connection (Timeout if
	// 0). A plugin that has not connected by then is killed with everything
	// it started.
	StartTimeout time.Duration
	// Context, when set, cancels the start (Ctrl-C, a run's budget): the
	// plugin is killed and Start fails with ErrCanceled. It does not
	// bound the started plugin's life.
	Context context.Context
	// Logger receives the plugin's stderr lines and go-plugin's messages
	// (nil discards them).
	Logger *slog.Logger
}

// Client is one running plugin process, in a process group of its own. It
// serves many instances at once (Client.NewInstance) and is safe for
// concurrent use. Every call has a deadline (Options.Timeout), and so has
// Kill: a plugin that does not answer, or does not exit, is killed with
// everything it started.
type Client struct {
	path     string
	timeout  time.Duration
	pc       *plugin.Client
	cmd      *exec.Cmd
	rpc      pb.HALClient
	pid      int
	log      *slog.Logger
	next     atomic.Uint64
	once     sync.Once
	killProc func()        // kills the process group while the process runs (its command's context)
	killing  atomic.Bool   // Kill was called: an exit from now on is expected
	done     chan struct{} // closed when the process has exited
	exitErr  error         // why it exited, if not through Kill; set before done closes
	trips    atomic.Int64  // calls sent to the plugin (RoundTrips)
	streams  streams       // open Session streams not in use
}

// Start starts the plugin at opts.Path and completes the handshake. The
// errors name the executable and say what to do; they wrap ErrProtocol or
// ErrChecksum where those apply. Start takes at most about
// Options.StartTimeout, whatever the plugin does (a plugin whose children
// keep its stdout open included), and leaves no process behind when it
// fails.
func Start(opts Options) (*Client, error) {
	if opts.Path == "" {
		return nil, errors.New("halrpc: no plugin path")
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	start := opts.StartTimeout
	if start <= 0 {
		start = timeout
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var secure *plugin.SecureConfig
	var want []byte
	if opts.SHA256 != "" {
		var err error
		want, err = hex.DecodeString(strings.TrimSpace(opts.SHA256))
		if err != nil || len(want) != sha256.Size {
			return nil, fmt.Errorf("plugin %s: sha256 %q is not 64 hex digits", opts.Path, opts.SHA256)
		}
		secure = &plugin.SecureConfig{Checksum: want, Hash: sha256.New()}
	}
	// The command's context is the kill switch: cancelling it makes
	// os/exec call Cancel, which kills the plugin's process group, at any
	// time after the process started (go-plugin owns cmd.Process until its
	// start returns, so it cannot be read here before).
	life, killProc := context.WithCancel(context.Background())
	cmd := exec.CommandContext(life, opts.Path, opts.Args...)
	setProcessAttrs(cmd)
	cmd.Cancel = func() error { killGroup(cmd.Process.Pid); return nil }
	cmd.WaitDelay = time.Second // then Wait closes the pipes whoever holds them
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  handshake(ProtocolVersion),
		VersionedPlugins: PluginSets(nil),
		Cmd:              cmd,
		SecureConfig:     secure,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     start,
		GRPCDialOptions:  dialOptions(),
		Logger:           newSlogLogger(opts.Logger, "plugin"),
	})
	c := &Client{path: opts.Path, timeout: timeout, pc: pc, cmd: cmd, log: log, killProc: killProc, done: make(chan struct{})}
	// Start (process and handshake), connect and dispense, within the
	// start budget and until ctx ends: a plugin that printed a handshake
	// but does not serve it, or whose children hold its stdout, cannot
	// hold the host.
	type connected struct {
		hc  pb.HALClient
		err error
	}
	ch := make(chan connected, 1)
	go func() {
		if _, err := pc.Start(); err != nil {
			ch <- connected{nil, startError(opts.Path, want, err)}
			return
		}
		hc, err := dispense(pc, opts.Path)
		ch <- connected{hc, err}
	}()
	var fail error
	finished := false
	select {
	case r := <-ch:
		finished = true
		if r.err == nil {
			c.rpc = r.hc
			if rc := pc.ReattachConfig(); rc != nil {
				c.pid = rc.Pid
			}
			go c.watchExit()
			return c, nil
		}
		fail = r.err
	case <-time.After(start):
		fail = fmt.Errorf("plugin %s: did not complete the handshake in time (%s; is it a proflab HAL plugin built with halrpc.Serve?); it was stopped with everything it started", opts.Path, start)
	case <-ctx.Done():
		fail = fmt.Errorf("plugin %s: start: %w: %w", opts.Path, ErrCanceled, context.Cause(ctx))
	}
	killProc()
	if !finished {
		select {
		case <-ch:
			finished = true
		case <-time.After(killWait):
			log.Error("the plugin's process group was killed but its start did not return", "plugin", opts.Path)
		}
	}
	if finished { // else go-plugin may still hold its lock
		if rc := pc.ReattachConfig(); rc != nil {
			c.pid = rc.Pid
		}
	}
	c.kill(0)
	return nil, fail
}

// dispense connects to a started plugin and returns its HAL client.
func dispense(pc *plugin.Client, path string) (pb.HALClient, error) {
	rpcc, err := pc.Client()
	if err != nil {
		return nil, fmt.Errorf("plugin %s: could not connect: %w (is it a proflab HAL plugin? `make build` builds the shipped ones)", path, err)
	}
	// A handshake line is not a server: ask go-plugin's health service
	// once, so that a plugin that printed one but serves nothing fails here.
	if err := rpcc.Ping(); err != nil {
		return nil, fmt.Errorf("plugin %s: printed its handshake but does not answer: %w", path, err)
	}
	raw, err := rpcc.Dispense(PluginName)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %s: %w", path, "does not serve a HAL", err)
	}
	hc, ok := raw.(pb.HALClient)
	if !ok {
		return nil, fmt.Errorf("plugin %s: dispensed %T, not a HAL client", path, raw)
	}
	return hc, nil
}

// watchExit closes c.done when the process has exited.
func (c *Client) watchExit() {
	t := time.NewTicker(exitPoll)
	defer t.Stop()
	for !c.pc.Exited() {
		<-t.C
	}
	if !c.killing.Load() {
		how := "exited"
		if st := c.cmd.ProcessState; st != nil {
			how = st.String()
		}
		c.exitErr = fmt.Errorf("%w (pid %d, %s)", ErrExited, c.pid, how)
	}
	close(c.done)
}

func startError(path string, want []byte, err error) error {
	msg := err.Error()
	lower := strings.ToLower(msg)
	switch {
	case errors.Is(err, plugin.ErrChecksumsDoNotMatch):
		got := "unknown"
		if sum, e := fileSHA256(path); e == nil {
			got = sum
		}
		return fmt.Errorf("plugin %s: %w: the file's sha256 is %s, the configuration wants %s (rebuild the plugin or update sha256)",
			path, ErrChecksum, got, hex.EncodeToString(want))
	case strings.Contains(lower, "incompatible api version"):
		return fmt.Errorf("plugin %s: %w (%s); this proflab speaks HAL protocol %d: rebuild the plugin against this proflab's halplugins (make build)",
			path, ErrProtocol, msg, ProtocolVersion)
	case strings.Contains(lower, "timeout while waiting for plugin to start"):
		return fmt.Errorf("plugin %s: did not complete the handshake in time (is it a proflab HAL plugin built with halrpc.Serve?): %w", path, err)
	}
	return fmt.Errorf("plugin %s: could not start: %w (is it a proflab HAL plugin? `make build` builds the shipped ones)", path, err)
}

// Path is the plugin executable.
func (c *Client) Path() string { return c.path }

// Pid is the plugin's process id.
func (c *Client) Pid() int { return c.pid }

// Exited reports whether the plugin process has exited.
func (c *Client) Exited() bool { return c.pc.Exited() }

// Done is closed when the plugin process has exited, for whatever reason
// (Kill included): a host watches it to notice a plugin that dies between
// calls.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err says why the process is gone once Done is closed: nil after Kill, an
// error wrapping ErrExited (with its exit status) when it exited on its own
// or was killed by someone else. It is nil while the process runs.
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.exitErr
	default:
		return nil
	}
}

// Kill ends the plugin process and everything it started, and waits for
// it: a graceful shutdown first, and after ShutdownTimeout (a frozen or
// stopped plugin) SIGKILL to its process group. Calls in flight fail with
// ErrExited. Kill is idempotent and always returns.
func (c *Client) Kill() { c.kill(ShutdownTimeout) }

// kill is Kill with the grace period given; 0 kills at once (a plugin that
// did not answer in time gets no second chance).
func (c *Client) kill(grace time.Duration) {
	c.once.Do(func() {
		c.killing.Store(true)
		c.closeStreams()
		if grace <= 0 {
			c.killProc()
		}
		done := make(chan struct{})
		go func() { defer close(done); c.pc.Kill() }()
		if grace > 0 {
			select {
			case <-done:
			case <-time.After(grace):
				c.log.Warn("the plugin did not exit in time; killing its process group", "pid", c.pid, "grace", grace)
				c.killProc()
			}
		}
		select {
		case <-done:
		case <-time.After(killWait):
			c.log.Error("the plugin's process group was killed but its clean-up did not finish", "pid", c.pid)
		}
		// Whatever the plugin started and left behind (its group outlives
		// it while any member runs).
		c.killProc()
		killGroup(c.pid)
	})
}

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
		c.kill(0)
		return fmt.Errorf("%s: %w within %s; the plugin (pid %d) was killed (raise its timeout in the config if it needs longer)", what, ErrTimeout, timeout, c.pid)
	case code == codes.Unavailable || code == codes.Canceled || c.pc.Exited():
		gone := c.Err()
		c.Kill()
		if gone == nil {
			gone = fmt.Errorf("%w (pid %d)", ErrExited, c.pid)
		}
		return fmt.Errorf("%s: %w; its last log lines are in the run log: %s", what, gone, status.Convert(err).Message())
	case code == codes.Unimplemented:
		return fmt.Errorf("%s: %w: %s", what, hal.ErrUnsupported, status.Convert(err).Message())
	}
	return fmt.Errorf("%s: %s", what, status.Convert(err).Message())
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

// unaryCall is a call's unary RPC, its answer wrapped in a Reply.
type unaryCall func(ctx context.Context) (*pb.Reply, error)

// send sends a call. When the plugin serves Session it goes on the
// instance's stream and send returns without its answer; otherwise the
// unary RPC is made by wait. The first call on a client whose plugin has
// not answered on a stream yet is read at once, to learn whether it
// serves Session (then the unary RPC is used from now on).
func (r *remote) send(what string, call *pb.Call, unary unaryCall) *sent {
	if lc := r.configure; lc != nil {
		r.configure = nil
		r.pipe.add(r, r.send("configure", configureCall(lc.req), r.configureUnary(lc.req)), lc.then)
	}
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
func (r *remote) do(what string, call *pb.Call, unary unaryCall) (*pb.Reply, error) {
	c := r.send(what, call, unary)
	_ = r.pipe.Settle() // failures reach their own callbacks
	return r.wait(c)
}

// later sends a call whose answer the caller does not need now: with a
// pipeline, on a plugin known to serve Session, then runs when the
// pipeline settles; otherwise the call is made, then runs at once and its
// error is returned.
func (r *remote) later(what string, call *pb.Call, unary unaryCall, then func(*pb.Reply, error) error) error {
	if served, _ := r.c.sessionMode(); r.pipe == nil || !served {
		return then(r.do(what, call, unary))
	}
	if r.pipe.Pending() >= MaxPipelined {
		_ = r.pipe.Settle() // failures reach their own callbacks
	}
	r.pipe.add(r, r.send(what, call, unary), then)
	return nil
}

func (r *remote) instance() *pb.InstanceRequest { return &pb.InstanceRequest{Instance: r.id} }

func configureCall(req *pb.ConfigureRequest) *pb.Call {
	return &pb.Call{Call: &pb.Call_Configure{Configure: req}}
}

func (r *remote) configureUnary(req *pb.ConfigureRequest) unaryCall {
	return func(ctx context.Context) (*pb.Reply, error) {
		a, err := r.c.rpc.Configure(ctx, req)
		return &pb.Reply{Reply: &pb.Reply_Configure{Configure: a}}, err
	}
}

func (r *remote) Configure(m hal.Machine, settings []byte) error {
	req := &pb.ConfigureRequest{Instance: r.id, Machine: machineToPB(m), Settings: settings}
	reply, err := r.do("configure", configureCall(req), r.configureUnary(req))
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
		return answered(r.do("configure", configureCall(req), r.configureUnary(req)))
	}
	r.configure = &lazyConfigure{req: req, then: answered}
	return nil
}

func (r *remote) Describe() (hal.Description, error) {
	d := r.desc
	r.desc = nil
	if d == nil {
		req := r.instance()
		reply, err := r.do("describe", &pb.Call{Call: &pb.Call_Describe{Describe: req}}, func(ctx context.Context) (*pb.Reply, error) {
			a, err := r.c.rpc.Describe(ctx, req)
			return &pb.Reply{Reply: &pb.Reply_Description{Description: a}}, err
		})
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
		reply, err := r.do("abilities", &pb.Call{Call: &pb.Call_Abilities{Abilities: req}}, func(ctx context.Context) (*pb.Reply, error) {
			a, err := r.c.rpc.Abilities(ctx, req)
			return &pb.Reply{Reply: &pb.Reply_Abilities{Abilities: a}}, err
		})
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
	reply, err := r.do("number of counters", &pb.Call{Call: &pb.Call_NumberOfCounters{NumberOfCounters: req}}, func(ctx context.Context) (*pb.Reply, error) {
		a, err := r.c.rpc.NumberOfCounters(ctx, req)
		return &pb.Reply{Reply: &pb.Reply_Counters{Counters: a}}, err
	})
	if errors.Is(err, hal.ErrUnsupported) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return reply.GetCounters().GetCounters(), nil
}

// programmingUnary wraps a unary RPC answering Programming.
func programmingUnary(fn func(ctx context.Context) (*pb.Programming, error)) unaryCall {
	return func(ctx context.Context) (*pb.Reply, error) {
		p, err := fn(ctx)
		return &pb.Reply{Reply: &pb.Reply_Programming{Programming: p}}, err
	}
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
func (r *remote) programming(what string, call *pb.Call, unary unaryCall) (hal.Programming, error) {
	reply, err := r.do(what, call, unary)
	return programmingOf(what, reply, err)
}

func (r *remote) Reset() (hal.Programming, error) {
	req := r.instance()
	return r.programming("reset", &pb.Call{Call: &pb.Call_Reset_{Reset_: req}}, programmingUnary(func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.Reset(ctx, req)
	}))
}

func (r *remote) QuerySource(cpus []int, src hal.Source) ([]hal.SourceInfo, error) {
	req := &pb.SourceRequest{Instance: r.id, Cpus: cpusToPB(cpus), Source: uint32(src)}
	reply, err := r.do("query", &pb.Call{Call: &pb.Call_QuerySource{QuerySource: req}}, func(ctx context.Context) (*pb.Reply, error) {
		a, err := r.c.rpc.QuerySource(ctx, req)
		return &pb.Reply{Reply: &pb.Reply_Query{Query: a}}, err
	})
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
	reply, err := r.do("set", &pb.Call{Call: &pb.Call_SetInterval{SetInterval: req}}, func(ctx context.Context) (*pb.Reply, error) {
		a, err := r.c.rpc.SetInterval(ctx, req)
		return &pb.Reply{Reply: &pb.Reply_SetInterval{SetInterval: a}}, err
	})
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

func (r *remote) startCall(cpus []int, src hal.Source) (*pb.Call, unaryCall) {
	req := &pb.SourceRequest{Instance: r.id, Cpus: cpusToPB(cpus), Source: uint32(src)}
	return &pb.Call{Call: &pb.Call_StartInterrupt{StartInterrupt: req}}, programmingUnary(func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.StartInterrupt(ctx, req)
	})
}

func (r *remote) stopCall(cpus []int, src hal.Source) (*pb.Call, unaryCall) {
	req := &pb.SourceRequest{Instance: r.id, Cpus: cpusToPB(cpus), Source: uint32(src)}
	return &pb.Call{Call: &pb.Call_StopInterrupt{StopInterrupt: req}}, programmingUnary(func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.StopInterrupt(ctx, req)
	})
}

func (r *remote) StartInterrupt(cpus []int, src hal.Source) (hal.Programming, error) {
	call, unary := r.startCall(cpus, src)
	return r.programming("start", call, unary)
}

func (r *remote) StopInterrupt(cpus []int, src hal.Source) (hal.Programming, error) {
	call, unary := r.stopCall(cpus, src)
	return r.programming("stop", call, unary)
}

// StartInterruptLater is StartInterrupt whose answer is handed to then,
// through the instance's Pipeline (see later). HalStartProfileInterrupt
// returns nothing to the kernel: only its programming matters, and only
// once the simulated processors run again.
func (r *remote) StartInterruptLater(cpus []int, src hal.Source, then func(hal.Programming, error) error) error {
	call, unary := r.startCall(cpus, src)
	return r.later("start", call, unary, func(reply *pb.Reply, err error) error { return then(programmingOf("start", reply, err)) })
}

// StopInterruptLater is StopInterrupt as StartInterruptLater is
// StartInterrupt.
func (r *remote) StopInterruptLater(cpus []int, src hal.Source, then func(hal.Programming, error) error) error {
	call, unary := r.stopCall(cpus, src)
	return r.later("stop", call, unary, func(reply *pb.Reply, err error) error { return then(programmingOf("stop", reply, err)) })
}

func (r *remote) RefillTimer(cpus []int) (hal.Programming, error) {
	req := &pb.CPUsRequest{Instance: r.id, Cpus: cpusToPB(cpus)}
	return r.programming("refill timer", &pb.Call{Call: &pb.Call_RefillTimer{RefillTimer: req}}, programmingUnary(func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.RefillTimer(ctx, req)
	}))
}

func (r *remote) ControlArea(cpus []int, present bool) (hal.Programming, error) {
	req := &pb.ControlAreaRequest{Instance: r.id, Cpus: cpusToPB(cpus), Present: present}
	return r.programming("control area", &pb.Call{Call: &pb.Call_ControlArea{ControlArea: req}}, programmingUnary(func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.ControlArea(ctx, req)
	}))
}

func (r *remote) Interrupts(batch []hal.Interrupt) (hal.Programming, error) {
	req := &pb.InterruptsRequest{Instance: r.id, Packed: hal.PackInterrupts(batch)}
	return r.programming("interrupts", &pb.Call{Call: &pb.Call_Interrupts{Interrupts: req}}, programmingUnary(func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.Interrupts(ctx, req)
	}))
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
	c := &sent{what: "close", unary: func(ctx context.Context) (*pb.Reply, error) {
		a, err := r.c.rpc.Close(ctx, req)
		return &pb.Reply{Reply: &pb.Reply_Empty{Empty: a}}, err
	}}
	r.c.trips.Add(1)
	_, err := r.waitWithin(context.WithoutCancel(r.ctx), min(closeTimeout, r.c.timeout), c)
	return err
}
