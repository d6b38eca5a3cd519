package importtest

import (
	"bytes"
	"runtime/pprof"
	"time"
)

// GoCPUProfile profiles a small real Go program for d with runtime/pprof
// and returns the gzipped profile.proto: busy loops in SpinLight,
// SpinMedium and SpinHeavy run in the proportions 1:2:4 of their work,
// SpinHeavy reached through two callers (CallerA three times as often as
// CallerB), so the profile has several stacks and distinct weights.
// The result measures a real run: it differs from run to run.
func GoCPUProfile(d time.Duration) ([]byte, error) {
	var b bytes.Buffer
	if err := pprof.StartCPUProfile(&b); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(d)
	var sink uint64
	for time.Now().Before(deadline) {
		sink += SpinLight(1 << 16)
		sink += SpinMedium(2 << 16)
		sink += CallerA(3 << 16)
		sink += CallerB(1 << 16)
	}
	pprof.StopCPUProfile()
	Sink = sink
	return b.Bytes(), nil
}

// Sink keeps the loops' results alive.
var Sink uint64

// SpinLight runs n rounds of arithmetic.
//
//go:noinline
func SpinLight(n int) uint64 {
	x := uint64(3)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 3
		x ^= x >> 17
	}
	return x
}

// SpinMedium runs n rounds of arithmetic.
//
//go:noinline
func SpinMedium(n int) uint64 {
	x := uint64(5)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 5
		x ^= x >> 17
	}
	return x
}

// SpinHeavy runs n rounds of arithmetic.
//
//go:noinline
func SpinHeavy(n int) uint64 {
	x := uint64(7)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 7
		x ^= x >> 17
	}
	return x
}

// CallerA calls SpinHeavy for n rounds.
//
//go:noinline
func CallerA(n int) uint64 { return SpinHeavy(n) }

// CallerB calls SpinHeavy for n rounds.
//
//go:noinline
func CallerB(n int) uint64 { return SpinHeavy(n) }
