package halrpc

import (
	"context"
	"fmt"

	pb "github.com/proflab/proflab/halplugins/halrpc/proto"
)

// unary makes call as the unary RPC of the same name, for a plugin that
// does not serve the Session stream (one in another language, or built
// before Session), and wraps its answer in the Reply the stream would have
// carried: the one place the fallback lives, so an instance's calls are
// written once, as Calls.
func (c *Client) unary(ctx context.Context, call *pb.Call) (*pb.Reply, error) {
	programming := func(p *pb.Programming, err error) (*pb.Reply, error) {
		return &pb.Reply{Reply: &pb.Reply_Programming{Programming: p}}, err
	}
	switch x := call.GetCall().(type) {
	case *pb.Call_Configure:
		a, err := c.rpc.Configure(ctx, x.Configure)
		return &pb.Reply{Reply: &pb.Reply_Configure{Configure: a}}, err
	case *pb.Call_Describe:
		a, err := c.rpc.Describe(ctx, x.Describe)
		return &pb.Reply{Reply: &pb.Reply_Description{Description: a}}, err
	case *pb.Call_Abilities:
		a, err := c.rpc.Abilities(ctx, x.Abilities)
		return &pb.Reply{Reply: &pb.Reply_Abilities{Abilities: a}}, err
	case *pb.Call_NumberOfCounters:
		a, err := c.rpc.NumberOfCounters(ctx, x.NumberOfCounters)
		return &pb.Reply{Reply: &pb.Reply_Counters{Counters: a}}, err
	case *pb.Call_QuerySource:
		a, err := c.rpc.QuerySource(ctx, x.QuerySource)
		return &pb.Reply{Reply: &pb.Reply_Query{Query: a}}, err
	case *pb.Call_SetInterval:
		a, err := c.rpc.SetInterval(ctx, x.SetInterval)
		return &pb.Reply{Reply: &pb.Reply_SetInterval{SetInterval: a}}, err
	case *pb.Call_Close:
		a, err := c.rpc.Close(ctx, x.Close)
		return &pb.Reply{Reply: &pb.Reply_Empty{Empty: a}}, err
	case *pb.Call_Reset_:
		return programming(c.rpc.Reset(ctx, x.Reset_))
	case *pb.Call_StartInterrupt:
		return programming(c.rpc.StartInterrupt(ctx, x.StartInterrupt))
	case *pb.Call_StopInterrupt:
		return programming(c.rpc.StopInterrupt(ctx, x.StopInterrupt))
	case *pb.Call_RefillTimer:
		return programming(c.rpc.RefillTimer(ctx, x.RefillTimer))
	case *pb.Call_ControlArea:
		return programming(c.rpc.ControlArea(ctx, x.ControlArea))
	case *pb.Call_Interrupts:
		return programming(c.rpc.Interrupts(ctx, x.Interrupts))
	}
	return nil, fmt.Errorf("proflab bug: no unary RPC for the call %T", call.GetCall())
}
