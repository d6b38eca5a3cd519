package lab_test

import "golang.org/x/sys/unix"

// threadCPUTime is the processor time the calling OS thread has used
// (CLOCK_THREAD_CPUTIME_ID, to the nanosecond), and whether it is known.
func threadCPUTime() (ns int64, ok bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
