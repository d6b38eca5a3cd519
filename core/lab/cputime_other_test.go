//go:build !unix

package lab_test

// cpuTime is not known here (see cputime_unix_test.go).
func cpuTime() (ns int64, ok bool) { return 0, false }
