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

// Errors a call can wrap; test with errors.Is.
var (
	// ErrTimeout: the plugin did not answer within the timeout (it is
	// then killed).
	ErrTimeout = errors.New("the plugin did not answer in time")
	// ErrExited: the plugin process is gone (it crashed or was killed).
	ErrExited = errors.New("the plugin process exited")
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
	// StartTimeout bounds the start and handshake (Timeout if 0).
	StartTimeout time.Duration
	// Logger receives the plugin's stderr lines and go-plugin's messages
	// (nil discards them).
	Logger *slog.Logger
}

// Client is one running plugin process. It serves many instances at once
// (Client.NewInstance) and is safe for concurrent use.
type Client struct {
	path    string
	timeout time.Duration
	pc      *plugin.Client
	rpc     pb.HALClient
	pid     int
	next    atomic.Uint64
	once    sync.Once
}

// Start starts the plugin at opts.Path and completes the handshake. The
// errors name the executable and say what to do; they wrap ErrProtocol or
// ErrChecksum where those apply.
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
	cmd := exec.Command(opts.Path, opts.Args...)
	setParentDeathSignal(cmd)
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
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  handshake(ProtocolVersion),
		VersionedPlugins: PluginSets(nil),
		Cmd:              cmd,
		SecureConfig:     secure,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     start,
		Logger:           newSlogLogger(opts.Logger, "plugin"),
	})
	rpcc, err := pc.Client()
	if err != nil {
		pc.Kill()
		return nil, startError(opts.Path, want, err)
	}
	raw, err := rpcc.Dispense(PluginName)
	if err != nil {
		pc.Kill()
		return nil, fmt.Errorf("plugin %s: %s: %w", opts.Path, "does not serve a HAL", err)
	}
	hc, ok := raw.(pb.HALClient)
	if !ok {
		pc.Kill()
		return nil, fmt.Errorf("plugin %s: dispensed %T, not a HAL client", opts.Path, raw)
	}
	c := &Client{path: opts.Path, timeout: timeout, pc: pc, rpc: hc}
	if rc := pc.ReattachConfig(); rc != nil {
		c.pid = rc.Pid
	}
	return c, nil
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

// Kill ends the plugin process (gracefully, then forcibly) and waits for
// it. Calls in flight fail with ErrExited. Kill is idempotent.
func (c *Client) Kill() { c.once.Do(c.pc.Kill) }

// NewInstance returns a new, unconfigured HAL instance served by the
// plugin. Its calls are bounded by the client's timeout.
func (c *Client) NewInstance() hal.Instance {
	return &remote{c: c, id: fmt.Sprintf("i%d", c.next.Add(1))}
}

// call runs one RPC under the timeout and classifies its failure.
func (c *Client) call(what string, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	err := fn(ctx)
	if err == nil {
		return nil
	}
	code := status.Code(err)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || code == codes.DeadlineExceeded:
		c.Kill()
		return fmt.Errorf("%s: %w within %s; the plugin (pid %d) was stopped (raise its timeout in the config if it needs longer)", what, ErrTimeout, c.timeout, c.pid)
	case code == codes.Unavailable || code == codes.Canceled || c.pc.Exited():
		c.Kill()
		return fmt.Errorf("%s: %w (pid %d; its last log lines are in the run log): %s", what, ErrExited, c.pid, status.Convert(err).Message())
	case code == codes.Unimplemented:
		return fmt.Errorf("%s: %w: %s", what, hal.ErrUnsupported, status.Convert(err).Message())
	}
	return fmt.Errorf("%s: %s", what, status.Convert(err).Message())
}

// remote is one instance in a plugin process.
type remote struct {
	c  *Client
	id string
}

var _ hal.Instance = (*remote)(nil)

func (r *remote) Configure(m hal.Machine, settings []byte) error {
	return r.c.call("configure", func(ctx context.Context) error {
		_, err := r.c.rpc.Configure(ctx, &pb.ConfigureRequest{Instance: r.id, Machine: machineToPB(m), Settings: settings})
		return err
	})
}

func (r *remote) Describe() (hal.Description, error) {
	var d *pb.Description
	err := r.c.call("describe", func(ctx context.Context) (e error) {
		d, e = r.c.rpc.Describe(ctx, &pb.InstanceRequest{Instance: r.id})
		return e
	})
	if err != nil {
		return hal.Description{}, err
	}
	return descriptionFromPB(d), nil
}

func (r *remote) Abilities() (hal.Abilities, error) {
	var a *pb.AbilitiesResponse
	err := r.c.call("abilities", func(ctx context.Context) (e error) {
		a, e = r.c.rpc.Abilities(ctx, &pb.InstanceRequest{Instance: r.id})
		return e
	})
	if err != nil {
		return hal.Abilities{}, err
	}
	return hal.Abilities{TimerRefiller: a.GetTimerRefiller(), ControlAreaObserver: a.GetControlAreaObserver(), InterruptHook: a.GetInterruptHook()}, nil
}

// NumberOfCounters asks HalQueryProfileNumberOfCounters. A plugin built
// before the call existed answers UNIMPLEMENTED: it reports 0 counters,
// as a HAL that is not a hal.CounterReporter does in-process.
func (r *remote) NumberOfCounters() (uint32, error) {
	var a *pb.CountersResponse
	err := r.c.call("number of counters", func(ctx context.Context) (e error) {
		a, e = r.c.rpc.NumberOfCounters(ctx, &pb.InstanceRequest{Instance: r.id})
		return e
	})
	if errors.Is(err, hal.ErrUnsupported) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return a.GetCounters(), nil
}

// programming runs a call answering Programming.
func (r *remote) programming(what string, fn func(ctx context.Context) (*pb.Programming, error)) (hal.Programming, error) {
	var p *pb.Programming
	err := r.c.call(what, func(ctx context.Context) (e error) {
		p, e = fn(ctx)
		return e
	})
	if err != nil {
		return hal.Programming{}, err
	}
	out, err := programmingFromPB(p)
	if err != nil {
		return hal.Programming{}, fmt.Errorf("%s: nonsense answer: %w", what, err)
	}
	return out, nil
}

func (r *remote) Reset() (hal.Programming, error) {
	return r.programming("reset", func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.Reset(ctx, &pb.InstanceRequest{Instance: r.id})
	})
}

func (r *remote) QuerySource(cpus []int, src hal.Source) ([]hal.SourceInfo, error) {
	var q *pb.QueryResponse
	err := r.c.call("query", func(ctx context.Context) (e error) {
		q, e = r.c.rpc.QuerySource(ctx, &pb.SourceRequest{Instance: r.id, Cpus: cpusToPB(cpus), Source: uint32(src)})
		return e
	})
	if err != nil {
		return nil, err
	}
	out := make([]hal.SourceInfo, len(q.GetInfo()))
	for i, v := range q.GetInfo() {
		out[i] = hal.SourceInfo{Supported: v.GetSupported(), Interval: v.GetInterval()}
	}
	return out, nil
}

func (r *remote) SetInterval(cpus []int, src hal.Source, interval uint32) ([]uint32, hal.Programming, error) {
	var s *pb.SetIntervalResponse
	err := r.c.call("set", func(ctx context.Context) (e error) {
		s, e = r.c.rpc.SetInterval(ctx, &pb.SetIntervalRequest{Instance: r.id, Cpus: cpusToPB(cpus), Source: uint32(src), Interval: interval})
		return e
	})
	if err != nil {
		return nil, hal.Programming{}, err
	}
	p, err := programmingFromPB(s.GetProgramming())
	if err != nil {
		return nil, hal.Programming{}, fmt.Errorf("set: nonsense answer: %w", err)
	}
	return s.GetEffective(), p, nil
}

func (r *remote) StartInterrupt(cpus []int, src hal.Source) (hal.Programming, error) {
	return r.programming("start", func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.StartInterrupt(ctx, &pb.SourceRequest{Instance: r.id, Cpus: cpusToPB(cpus), Source: uint32(src)})
	})
}

func (r *remote) StopInterrupt(cpus []int, src hal.Source) (hal.Programming, error) {
	return r.programming("stop", func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.StopInterrupt(ctx, &pb.SourceRequest{Instance: r.id, Cpus: cpusToPB(cpus), Source: uint32(src)})
	})
}

func (r *remote) RefillTimer(cpus []int) (hal.Programming, error) {
	return r.programming("refill timer", func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.RefillTimer(ctx, &pb.CPUsRequest{Instance: r.id, Cpus: cpusToPB(cpus)})
	})
}

func (r *remote) ControlArea(cpus []int, present bool) (hal.Programming, error) {
	return r.programming("control area", func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.ControlArea(ctx, &pb.ControlAreaRequest{Instance: r.id, Cpus: cpusToPB(cpus), Present: present})
	})
}

func (r *remote) Interrupts(batch []hal.Interrupt) (hal.Programming, error) {
	packed := hal.PackInterrupts(batch)
	return r.programming("interrupts", func(ctx context.Context) (*pb.Programming, error) {
		return r.c.rpc.Interrupts(ctx, &pb.InterruptsRequest{Instance: r.id, Packed: packed})
	})
}

func (r *remote) Close() error {
	if r.c.Exited() {
		return nil
	}
	return r.c.call("close", func(ctx context.Context) error {
		_, err := r.c.rpc.Close(ctx, &pb.InstanceRequest{Instance: r.id})
		return err
	})
}
