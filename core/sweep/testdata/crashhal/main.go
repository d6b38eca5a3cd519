// Command crashhal is a test HAL plugin: the shipped APIC timer, except
// that the process exits (a crash, as the host sees it) when the kernel
// programs the interval 4242, stops answering (a hang) at 4343, and
// panics (the SDK turns it into the call's error) at 4444. With
// CRASHHAL_REBUILD=NEW:PATH in its environment, it renames the file NEW
// over PATH before it crashes: a plugin rebuilt in the middle of a sweep,
// which the worker's next run starts. With CRASHHAL_SLOW_STARTS=DIR, a
// start that takes a token from DIR (removes one of its files) waits 3 s
// before its handshake: a start that times out on a busy machine, as
// many times as there are tokens. A
// sweep test crashes or hangs a real plugin process in one run this way
// and checks that the worker's next run gets a new one.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
)

// The intervals that make the plugin exit and hang.
const (
	crashInterval = 4242
	hangInterval  = 4343
	panicInterval = 4444
)

type crashHAL struct{ hal.HAL }

// SetInterval implements hal.HAL: NtSetIntervalProfile reaches it.
func (c crashHAL) SetInterval(cpus []int, src hal.Source, interval uint32) ([]uint32, hal.Programming, error) {
	switch interval {
	case crashInterval:
		if from, to, ok := strings.Cut(os.Getenv("CRASHHAL_REBUILD"), ":"); ok {
			if err := os.Rename(from, to); err != nil {
				fmt.Fprintln(os.Stderr, "crashhal:", err)
			}
		}
		os.Exit(3)
	case hangInterval:
		select {}
	case panicInterval:
		var m map[string]int
		m["asked to panic"]++ // a nil map: a runtime panic, with a heap address nowhere
	}
	return c.HAL.SetInterval(cpus, src, interval)
}

func main() {
	if dir := os.Getenv("CRASHHAL_SLOW_STARTS"); dir != "" {
		slowStart(dir)
	}
	halrpc.Serve(func() hal.HAL { return crashHAL{apic.New()} })
}

// slowStart waits 3 s if it can take a token from dir.
func slowStart(dir string) {
	tokens, _ := os.ReadDir(dir)
	for _, t := range tokens {
		if os.Remove(filepath.Join(dir, t.Name())) == nil {
			time.Sleep(3 * time.Second)
			return
		}
	}
}
