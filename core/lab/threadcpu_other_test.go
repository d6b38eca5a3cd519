//go:build !linux

package lab_test

// threadCPUTime is not known here (see threadcpu_linux_test.go).
func threadCPUTime() (ns int64, ok bool) { return 0, false }
