package halrpc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/proflab/proflab/halplugins/hal"
	pb "github.com/proflab/proflab/halplugins/halrpc/proto"
)

// Serve serves the HAL made by factory as a plugin and does not return: it
// is the whole body of a plugin's main.
//
//	func main() { halrpc.Serve(mytimer.New) }
//
// Run by hand (not by proflab), the program says so and exits 1. The
// plugin logs to stderr only, and exits when its parent process dies.
func Serve(factory hal.Factory) {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	go watchParent(os.Getppid(), time.Second)
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  handshake(ProtocolVersion),
		VersionedPlugins: PluginSets(factory),
		GRPCServer:       grpcServer,
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "hal", Level: hclog.Info, Output: os.Stderr, JSONFormat: true}),
	})
	os.Exit(0)
}

// PluginSets returns the go-plugin plugin sets for every protocol version
// this package serves, keyed by version.
func PluginSets(factory hal.Factory) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{ProtocolVersion: {PluginName: &GRPCPlugin{Factory: factory}}}
}

// watchParent exits the process once its parent is gone (it is then
// re-parented, so the parent pid changes). It backs up the host's
// parent-death signal, which only Linux has.
func watchParent(parent int, every time.Duration) {
	if parent <= 1 {
		return
	}
	for {
		time.Sleep(every)
		if os.Getppid() != parent {
			fmt.Fprintln(os.Stderr, "proflab HAL plugin: parent process is gone, exiting")
			os.Exit(2)
		}
	}
}

// GRPCPlugin is the go-plugin plugin for the HAL protocol: the server side
// serves HALs made by Factory, the client side dispenses the gRPC client.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Factory makes one HAL per instance (server side only).
	Factory hal.Factory
	// Unary serves the unary RPCs only, as a plugin built before the
	// Session stream existed does (for tests of the host's fallback).
	Unary bool
}

var _ plugin.GRPCPlugin = (*GRPCPlugin)(nil)

// GRPCServer registers the HAL service.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.Factory == nil {
		return errors.New("halrpc: GRPCPlugin has no Factory")
	}
	srv := &server{factory: p.Factory, instances: map[string]hal.Instance{}}
	if p.Unary {
		pb.RegisterHALServer(s, unaryServer{srv})
		return nil
	}
	pb.RegisterHALServer(s, srv)
	return nil
}

// unaryServer is a server without the Session stream.
type unaryServer struct{ *server }

func (unaryServer) Session(pb.HAL_SessionServer) error {
	return status.Error(codes.Unimplemented, "method Session not implemented")
}

// GRPCClient returns the generated client.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return pb.NewHALClient(c), nil
}

// server serves many instances, each a hal.Local over the factory.
type server struct {
	pb.UnimplementedHALServer
	factory   hal.Factory
	mu        sync.Mutex
	instances map[string]hal.Instance
}

func (s *server) get(id string) (hal.Instance, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.instances[id]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "unknown HAL instance %q (configure it first)", id)
	}
	return in, nil
}

// toStatus keeps ErrUnsupported recognisable across the wire. A panic's
// stack follows its message (the host's client takes it off into the
// run's log, so that the error says what panicked, the same every time).
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	var pe *hal.PanicError
	if errors.As(err, &pe) {
		return status.Error(codes.Unknown, err.Error()+"\n"+string(pe.Stack))
	}
	if errors.Is(err, hal.ErrUnsupported) {
		return status.Error(codes.Unimplemented, err.Error())
	}
	return status.Error(codes.Unknown, err.Error())
}

func (s *server) Configure(_ context.Context, r *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	if r.GetInstance() == "" {
		return nil, status.Error(codes.InvalidArgument, "configure: empty instance id")
	}
	s.mu.Lock()
	_, dup := s.instances[r.GetInstance()]
	s.mu.Unlock()
	if dup {
		return nil, status.Errorf(codes.AlreadyExists, "configure: instance %q already exists", r.GetInstance())
	}
	in := hal.Local(s.factory)
	if err := in.Configure(machineFromPB(r.GetMachine()), r.GetSettings()); err != nil {
		return nil, toStatus(err)
	}
	s.mu.Lock()
	s.instances[r.GetInstance()] = in
	s.mu.Unlock()
	// What the host asks next, answered now: one round trip opens a HAL.
	// A failing Describe or Abilities is left unset, for the host to ask
	// and report as that call's error.
	resp := &pb.ConfigureResponse{}
	if d, err := in.Describe(); err == nil {
		resp.Description = descriptionToPB(d)
	}
	if a, err := in.Abilities(); err == nil {
		resp.Abilities = abilitiesToPB(a)
	}
	return resp, nil
}

func (s *server) Close(_ context.Context, r *pb.InstanceRequest) (*pb.Empty, error) {
	s.mu.Lock()
	in, ok := s.instances[r.GetInstance()]
	delete(s.instances, r.GetInstance())
	s.mu.Unlock()
	if ok {
		_ = in.Close()
	}
	return &pb.Empty{}, nil
}

func (s *server) Describe(_ context.Context, r *pb.InstanceRequest) (*pb.Description, error) {
	in, err := s.get(r.GetInstance())
	if err != nil {
		return nil, err
	}
	d, err := in.Describe()
	if err != nil {
		return nil, toStatus(err)
	}
	return descriptionToPB(d), nil
}

func (s *server) Abilities(_ context.Context, r *pb.InstanceRequest) (*pb.AbilitiesResponse, error) {
	in, err := s.get(r.GetInstance())
	if err != nil {
		return nil, err
	}
	a, err := in.Abilities()
	if err != nil {
		return nil, toStatus(err)
	}
	return abilitiesToPB(a), nil
}

func (s *server) NumberOfCounters(_ context.Context, r *pb.InstanceRequest) (*pb.CountersResponse, error) {
	in, err := s.get(r.GetInstance())
	if err != nil {
		return nil, err
	}
	n, err := in.NumberOfCounters()
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.CountersResponse{Counters: n}, nil
}

// programming runs one call answering Programming.
func (s *server) programming(id string, fn func(hal.Instance) (hal.Programming, error)) (*pb.Programming, error) {
	in, err := s.get(id)
	if err != nil {
		return nil, err
	}
	p, err := fn(in)
	if err != nil {
		return nil, toStatus(err)
	}
	return programmingToPB(p), nil
}

func (s *server) Reset(_ context.Context, r *pb.InstanceRequest) (*pb.Programming, error) {
	return s.programming(r.GetInstance(), func(in hal.Instance) (hal.Programming, error) { return in.Reset() })
}

func (s *server) StartInterrupt(_ context.Context, r *pb.SourceRequest) (*pb.Programming, error) {
	return s.programming(r.GetInstance(), func(in hal.Instance) (hal.Programming, error) {
		return in.StartInterrupt(cpusFromPB(r.GetCpus()), hal.Source(r.GetSource()))
	})
}

func (s *server) StopInterrupt(_ context.Context, r *pb.SourceRequest) (*pb.Programming, error) {
	return s.programming(r.GetInstance(), func(in hal.Instance) (hal.Programming, error) {
		return in.StopInterrupt(cpusFromPB(r.GetCpus()), hal.Source(r.GetSource()))
	})
}

func (s *server) RefillTimer(_ context.Context, r *pb.CPUsRequest) (*pb.Programming, error) {
	return s.programming(r.GetInstance(), func(in hal.Instance) (hal.Programming, error) {
		return in.RefillTimer(cpusFromPB(r.GetCpus()))
	})
}

func (s *server) ControlArea(_ context.Context, r *pb.ControlAreaRequest) (*pb.Programming, error) {
	return s.programming(r.GetInstance(), func(in hal.Instance) (hal.Programming, error) {
		return in.ControlArea(cpusFromPB(r.GetCpus()), r.GetPresent())
	})
}

func (s *server) Interrupts(_ context.Context, r *pb.InterruptsRequest) (*pb.Programming, error) {
	return s.programming(r.GetInstance(), func(in hal.Instance) (hal.Programming, error) {
		batch, err := hal.UnpackInterrupts(r.GetPacked())
		if err != nil {
			return hal.Programming{}, err
		}
		return in.Interrupts(batch)
	})
}

func (s *server) QuerySource(_ context.Context, r *pb.SourceRequest) (*pb.QueryResponse, error) {
	in, err := s.get(r.GetInstance())
	if err != nil {
		return nil, err
	}
	info, err := in.QuerySource(cpusFromPB(r.GetCpus()), hal.Source(r.GetSource()))
	if err != nil {
		return nil, toStatus(err)
	}
	out := &pb.QueryResponse{Info: make([]*pb.SourceInfo, len(info))}
	for i, v := range info {
		out.Info[i] = &pb.SourceInfo{Supported: v.Supported, Interval: v.Interval}
	}
	return out, nil
}

func (s *server) SetInterval(_ context.Context, r *pb.SetIntervalRequest) (*pb.SetIntervalResponse, error) {
	in, err := s.get(r.GetInstance())
	if err != nil {
		return nil, err
	}
	eff, p, err := in.SetInterval(cpusFromPB(r.GetCpus()), hal.Source(r.GetSource()), r.GetInterval())
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.SetIntervalResponse{Effective: eff, Programming: programmingToPB(p)}, nil
}

// windowSize is the HTTP/2 flow-control window of both ends. Setting it
// turns gRPC's bandwidth estimation off: that estimation pings the other
// end when data arrives, and each ping wakes an idle process, which on a
// virtual machine costs as much as the call itself. The plugin's messages
// are small, so a fixed 1 MiB window never limits them.
const windowSize = 1 << 20

func grpcServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts, grpc.InitialWindowSize(windowSize), grpc.InitialConnWindowSize(windowSize))
	return grpc.NewServer(opts...)
}

func dialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithInitialWindowSize(windowSize), grpc.WithInitialConnWindowSize(windowSize)}
}
