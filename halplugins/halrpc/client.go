package halrpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	plugin "github.com/hashicorp/go-plugin"

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

// exitWait bounds the wait of a call that found the process gone for its
// exit to be seen (its status).
const exitWait = time.Second

// Errors a call can wrap; test with errors.Is.
var (
	// ErrTimeout: the plugin did not answer within the timeout (it is
	// then killed).
	ErrTimeout = errors.New("the plugin did not answer in time")
	// ErrStartTimeout: the plugin did not complete its handshake within
	// the start budget (it is then killed). A machine too busy to start
	// it in time causes it as well as a plugin that never will.
	ErrStartTimeout = errors.New("did not complete the handshake in time")
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
	// the check. Start opens the executable once, hashes that open file
	// and, when the sums agree, starts the process from that same open
	// file: a path swapped in between cannot run unchecked.
	SHA256 string
	// Timeout bounds each call (DefaultTimeout if 0). A call that takes
	// longer kills the plugin.
	Timeout time.Duration
	// StartTimeout bounds the start, handshake and connection (Timeout if
	// 0). A plugin that has not connected by then is killed with its
	// process group and its descendants.
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
// its process group and its descendants.
type Client struct {
	path     string
	sum      string // hex sha256 of the bytes the process was started from
	timeout  time.Duration
	pc       *plugin.Client
	cmd      *exec.Cmd
	rpc      pb.HALClient
	pid      int
	log      *slog.Logger
	next     atomic.Uint64
	once     sync.Once
	killProc func()        // kills the process group while the process runs (its command's context)
	cleanup  func()        // removes what starting it made (a private copy), once it has exited
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
	opts.withDefaults()
	exe, err := openExecutable(opts.Path)
	if err != nil {
		return nil, err
	}
	defer exe.close() // the process has its own once started
	if err := exe.check(opts.SHA256); err != nil {
		return nil, err
	}
	c, err := newClient(opts, exe)
	if err != nil {
		return nil, err
	}
	if err := c.connect(opts, exe); err != nil {
		return nil, err
	}
	if !exe.unchanged() {
		// rewritten in place between the hash and the start: what runs
		// may not be what was hashed
		c.kill(0)
		return nil, fmt.Errorf("plugin %s: the file changed while the plugin was being started (rebuilt in place?); start again once it is rebuilt", opts.Path)
	}
	return c, nil
}

// withDefaults fills the options' zero fields: the call timeout, the
// start budget (the call timeout), the context and the logger.
func (opts *Options) withDefaults() {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = opts.Timeout
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
}

// newClient prepares the plugin's command, in a process group of its own,
// starting the open executable exe, and go-plugin's client for it;
// nothing is started yet.
func newClient(opts Options, exe *executable) (*Client, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The command's context is the kill switch: cancelling it makes
	// os/exec call Cancel, which kills the plugin's process group, at any
	// time after the process started (go-plugin owns cmd.Process until its
	// start returns, so it cannot be read here before).
	life, killProc := context.WithCancel(context.Background())
	cmd := exec.CommandContext(life, opts.Path, opts.Args...) // argv[0] is the path people gave
	cleanup, err := exe.command(cmd)
	if err != nil {
		killProc()
		return nil, err
	}
	setProcessAttrs(cmd)
	cmd.Cancel = func() error { killAll(cmd.Process.Pid); return nil } // not waited for yet: the pid is the plugin's
	cmd.WaitDelay = time.Second                                        // then Wait closes the pipes whoever holds them
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  handshake(ProtocolVersion),
		VersionedPlugins: PluginSets(nil),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		// connect keeps the start budget; go-plugin's own, later, must
		// not kill the plugin alone first (its children would become
		// init's before connect could stop them)
		StartTimeout:    opts.StartTimeout + killWait,
		GRPCDialOptions: dialOptions(),
		Logger:          newSlogLogger(opts.Logger, "plugin"),
	})
	return &Client{path: opts.Path, sum: exe.sum, timeout: opts.Timeout, pc: pc, cmd: cmd, log: log, killProc: killProc, cleanup: cleanup, done: make(chan struct{})}, nil
}

// connect starts the process, completes the handshake, connects and
// dispenses the HAL, within the start budget and until the context ends:
// a plugin that printed a handshake but does not serve it, or whose
// children hold its stdout, cannot hold the host. On failure everything
// the plugin started is killed.
func (c *Client) connect(opts Options, exe *executable) error {
	type connected struct {
		hc  pb.HALClient
		err error
	}
	ch := make(chan connected, 1)
	go func() {
		if _, err := c.pc.Start(); err != nil {
			if e, ok := execError(opts.Path, exe, err); ok {
				err = e // the file could not be executed: named by its path
			} else {
				err = startError(opts.Path, err)
			}
			ch <- connected{nil, err}
			return
		}
		hc, err := dispense(c.pc, opts.Path)
		ch <- connected{hc, err}
	}()
	var fail error
	finished := false
	select {
	case r := <-ch:
		finished = true
		if r.err == nil {
			c.rpc = r.hc
			c.readPid()
			go c.watchExit()
			return nil
		}
		fail = r.err
	case <-time.After(opts.StartTimeout):
		fail = fmt.Errorf("plugin %s: %w (%s; is it a proflab HAL plugin built with halrpc.Serve?); it was killed with its process group and the processes it had started (one it started and left, by setsid and exit, is out of reach)", opts.Path, ErrStartTimeout, opts.StartTimeout)
	case <-opts.Context.Done():
		fail = fmt.Errorf("plugin %s: start: %w: %w", opts.Path, ErrCanceled, context.Cause(opts.Context))
	}
	c.killProc()
	if !finished {
		select {
		case <-ch:
			finished = true
		case <-time.After(killWait):
			c.log.Error("the plugin's process group was killed but its start did not return", "plugin", opts.Path)
		}
	}
	if finished { // else go-plugin may still hold its lock
		c.readPid()
	}
	c.kill(0)
	return fail
}

// readPid records the plugin's process id, once go-plugin knows it.
func (c *Client) readPid() {
	if rc := c.pc.ReattachConfig(); rc != nil {
		c.pid = rc.Pid
	}
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
		// the pid goes to the log, not the error: errors end up in
		// results, which must be the same bytes in every process
		c.log.Warn("the plugin process exited", "pid", c.pid, "status", how)
		c.exitErr = fmt.Errorf("%w (%s)", ErrExited, how)
	}
	c.cleanup()
	close(c.done)
}

func startError(path string, err error) error {
	msg := err.Error()
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(lower, "incompatible api version"):
		return fmt.Errorf("plugin %s: %w (%s); this proflab speaks HAL protocol %d: rebuild the plugin against this proflab's halplugins (make build)",
			path, ErrProtocol, msg, ProtocolVersion)
	case strings.Contains(lower, "timeout while waiting for plugin to start"):
		return fmt.Errorf("plugin %s: %w (is it a proflab HAL plugin built with halrpc.Serve?): %w", path, ErrStartTimeout, err)
	}
	return fmt.Errorf("plugin %s: could not start: %w (is it a proflab HAL plugin? `make build` builds the shipped ones)", path, err)
}

// Path is the plugin executable, as given to Start.
func (c *Client) Path() string { return c.path }

// SHA256 is the hex sha256 of the bytes the process was started from:
// Start opened the executable once, hashed that open file and started the
// process from it, so this is what runs even if the path names another
// file since (a plugin rebuilt, a symbolic link swapped).
func (c *Client) SHA256() string { return c.sum }

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

// Kill ends the plugin process and what it started, and waits for it: a
// graceful shutdown first, and after ShutdownTimeout (a frozen or stopped
// plugin) SIGKILL to its process group; then SIGKILL to whatever is left
// of its group and of its descendants as they were when Kill was called
// (on Linux: a child it moved out of its group with setsid included).
// A program the plugin had started and left before (setsid, and its
// parent exited) is out of reach. Calls in flight fail with ErrExited.
// Kill is idempotent and always returns.
func (c *Client) Kill() { c.kill(ShutdownTimeout) }

// kill is Kill with the grace period given; 0 kills at once (a plugin that
// did not answer in time gets no second chance).
func (c *Client) kill(grace time.Duration) {
	c.once.Do(func() {
		c.killing.Store(true)
		// what the plugin started, listed while it runs: a child it
		// moved out of its process group (setsid) would be nobody's once
		// the plugin exited
		var tree processTree
		if !c.pc.Exited() {
			tree = treeOf(c.pid)
		}
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
		// it while any member runs, and a child out of its group does not
		// die with it).
		c.killProc()
		killGroup(c.pid)
		tree.kill()
		c.cleanup()
	})
}
