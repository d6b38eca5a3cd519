package halrpc

import (
	"errors"
	"sync"

	"github.com/proflab/proflab/halplugins/hal"

	pb "github.com/proflab/proflab/halplugins/halrpc/proto"
)

// Pipeline orders the calls of one machine's HAL instances, which may live
// in several plugin processes, so that a call whose answer the kernel does
// not need at once is sent without waiting for it. Such a call (Configure
// whose answer the host already knows, HalStartProfileInterrupt and
// HalStopProfileInterrupt, which return nothing) is sent, and its answer
// is handed to its callback later: when a call that does need its answer
// is made on any instance of the pipeline, or when Settle is called. The
// callbacks run in the order the calls were made, on the goroutine that
// settles, so the programming they apply reaches the hardware in the same
// order as if every call had been waited for.
//
// A run settles its pipeline before the simulated processors run, so a
// deferred call changes when its answer is read, never what the hardware
// does. A deferred call that fails is reported by its callback, at the
// latest when the pipeline settles.
//
// Each process boundary crossing costs a round trip of 0.1–0.2 ms on a
// shared 2-core machine, mostly in waking the idle processes: a call sent
// before the previous one's answer was read shares its wake-up.
type Pipeline struct {
	mu    sync.Mutex
	queue []deferredCall
}

// Pipelined is what a plugin instance offers besides hal.Instance (every
// instance a Client makes has it): calls whose answers the kernel does not
// need at once, sent without waiting when the instance belongs to a
// Pipeline (NewInstanceIn) and the plugin serves the Session stream; then
// receives each answer, in call order, when the pipeline settles.
// Otherwise each is an ordinary call, and then runs before it returns.
type Pipelined interface {
	hal.Instance
	// ConfigureLazily is Configure for a host that already knows the
	// description and abilities the answer must give: the call is held
	// back until the instance's first call (none: never sent). ok is false
	// when the answer describes nothing (a plugin built before Configure
	// answered with the description).
	ConfigureLazily(m hal.Machine, settings []byte, then func(d hal.Description, a hal.Abilities, ok bool, err error) error) error
	// StartInterruptLater is StartInterrupt whose answer goes to then.
	StartInterruptLater(cpus []int, src hal.Source, then func(hal.Programming, error) error) error
	// StopInterruptLater is StopInterrupt whose answer goes to then.
	StopInterruptLater(cpus []int, src hal.Source, then func(hal.Programming, error) error) error
}

var _ Pipelined = (*remote)(nil)

// MaxPipelined bounds the calls a Pipeline holds unanswered: past it, the
// next call settles the pipeline first. A script that starts and stops
// profiles a million times without a run would otherwise keep a million
// answers unread, and a plugin whose answers nobody reads stops reading
// calls (gRPC's flow control), which would block the host.
const MaxPipelined = 64

// deferredCall is a call sent through a pipeline whose answer its callback
// has not had yet.
type deferredCall struct {
	r    *remote
	c    *sent
	then func(*pb.Reply, error) error
}

// NewPipeline returns an empty pipeline.
func NewPipeline() *Pipeline { return &Pipeline{} }

func (p *Pipeline) add(r *remote, c *sent, then func(*pb.Reply, error) error) {
	p.mu.Lock()
	p.queue = append(p.queue, deferredCall{r, c, then})
	p.mu.Unlock()
}

// Settle reads the answer of every call sent through the pipeline and
// hands each to its callback, in the order the calls were made. It
// returns the callbacks' errors. A nil Pipeline has nothing to settle.
func (p *Pipeline) Settle() error {
	if p == nil {
		return nil
	}
	var errs []error
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.mu.Unlock()
			return errors.Join(errs...)
		}
		d := p.queue[0]
		p.queue = p.queue[1:]
		p.mu.Unlock()
		if err := d.then(d.r.wait(d.c)); err != nil {
			errs = append(errs, err)
		}
	}
}

// Pending is the number of calls sent through the pipeline whose answers
// have not been handed to their callbacks yet.
func (p *Pipeline) Pending() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue)
}
