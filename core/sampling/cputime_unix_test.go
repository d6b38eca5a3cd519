//go:build unix

package sampling

import (
	"syscall"
	"time"
)

// cpuTime is the process's CPU time (user and system) so far: the
// benchmarks report it per operation beside the wall time, which a
// shared machine inflates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
