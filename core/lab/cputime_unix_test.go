//go:build unix

package lab_test

import "syscall"

// cpuTime is the processor time the process has used (user and system,
// every thread's, the garbage collector's included), and whether it is
// known: benchmarks report it beside wall time, which on a shared
// machine counts the other processes' time too.
func cpuTime() (ns int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
