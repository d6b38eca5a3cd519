package kernel

import (
	"fmt"

	"github.com/proflab/proflab/kernel/nt"
)

// The kernel logger's stack walking (xperf -stackwalk, WPR's CPU
// profile; TraceSetInformation's TraceStackTracingInfo names the events
// by their classic event ids): for each event of an enabled hook that
// interrupted a thread, the logger walks the interrupted context's
// stack and logs a StackWalk Stack event (hook 0x1820) right after it,
// with the event's time, process and thread and the frames innermost
// first: the IP, then the callers' return addresses. The idle context
// (no thread) has no stack to walk, as on Windows.

// HookStackWalk is the StackWalk Stack event's hook (group 0x18, opcode
// 32).
const HookStackWalk uint16 = 0x1820

// MaxStackWalkFrames is the most frames a stack walk keeps.
const MaxStackWalkFrames = 192

// StackWalkHooks are the events whose stacks a session can walk: the
// profile interrupts the model logs.
var StackWalkHooks = []uint16{nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE, nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT}

// SetStackWalk makes the session walk the stacks of the events of hooks
// (replacing the earlier list; none: no stack walking).
func (s *TraceSession) SetStackWalk(hooks []uint16) error {
	for _, h := range hooks {
		ok := false
		for _, v := range StackWalkHooks {
			ok = ok || h == v
		}
		if !ok {
			return fmt.Errorf("stack walking of hook 0x%04X: the model walks the stacks of 0x%04X and 0x%04X only", h, StackWalkHooks[0], StackWalkHooks[1])
		}
	}
	s.stackHooks = append([]uint16(nil), hooks...)
	return nil
}

// StackWalk returns the hooks whose stacks the session walks.
func (s *TraceSession) StackWalk() []uint16 { return append([]uint16(nil), s.stackHooks...) }

// Started is the simulated time (100 ns units) the session started at.
func (s *TraceSession) Started() uint64 { return s.started }

// Stopped is the simulated time the session stopped at, or false while
// it runs.
func (s *TraceSession) Stopped() (uint64, bool) { return s.stopped, !s.running }

// walkStack logs the stack of the event of hook that in raised, when
// the session walks that hook's stacks.
func (s *TraceSession) walkStack(hook uint16, in *Interrupt) {
	if in.Thread == nil {
		return
	}
	walk := false
	for _, h := range s.stackHooks {
		walk = walk || h == hook
	}
	if !walk {
		return
	}
	mask := s.m.lay.ptrMask
	s.frames = s.frames[:0]
	for _, f := range in.Callers {
		if len(s.frames) >= MaxStackWalkFrames-1 {
			break
		}
		s.frames = append(s.frames, f&mask)
	}
	s.emit(Event{Hook: HookStackWalk, CPU: in.CPU, Time: s.m.now, InstructionPointer: in.IP,
		ThreadId: in.Thread.id, ProcessId: in.Thread.proc.id, Frames: s.frames})
}
