// Command crashhal is a test HAL plugin: the shipped APIC timer, except
// that the process exits (a crash, as the host sees it) when the kernel
// programs the interval 4242. A sweep test crashes a real plugin process
// in one run this way and checks that the worker's next run gets a new
// one.
package main

import (
	"os"

	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
)

// crashInterval is the interval that makes the plugin exit.
const crashInterval = 4242

type crashHAL struct{ hal.HAL }

// SetInterval implements hal.HAL: NtSetIntervalProfile reaches it.
func (c crashHAL) SetInterval(cpus []int, src hal.Source, interval uint32) ([]uint32, hal.Programming, error) {
	if interval == crashInterval {
		os.Exit(3)
	}
	return c.HAL.SetInterval(cpus, src, interval)
}

func main() { halrpc.Serve(func() hal.HAL { return crashHAL{apic.New()} }) }
