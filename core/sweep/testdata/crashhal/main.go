// Command crashhal is a test HAL plugin: the shipped APIC timer, except
// that the process exits (a crash, as the host sees it) when the kernel
// programs the interval 4242, and stops answering (a hang) at 4343. A
// sweep test crashes or hangs a real plugin process in one run this way
// and checks that the worker's next run gets a new one.
package main

import (
	"os"

	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
)

// The intervals that make the plugin exit and hang.
const (
	crashInterval = 4242
	hangInterval  = 4343
)

type crashHAL struct{ hal.HAL }

// SetInterval implements hal.HAL: NtSetIntervalProfile reaches it.
func (c crashHAL) SetInterval(cpus []int, src hal.Source, interval uint32) ([]uint32, hal.Programming, error) {
	switch interval {
	case crashInterval:
		os.Exit(3)
	case hangInterval:
		select {}
	}
	return c.HAL.SetInterval(cpus, src, interval)
}

func main() { halrpc.Serve(func() hal.HAL { return crashHAL{apic.New()} }) }
