package importtest

import (
	"bytes"
	"runtime/pprof"
	"time"
)

// GoInlinedCPUProfile profiles a small real Go program whose hot code the
// compiler inlines, for d, with runtime/pprof, and returns the gzipped
// profile.proto. Its locations hold several lines, innermost first, as
// Go writes inlined calls:
//
//   - Mix runs inlined in two physical functions, HashLoop (through
//     Step, itself inlined: mid-stack inlining) and SumLoop;
//   - Rare is a small function inlined into HashLoop that runs about
//     half a percent of the time;
//   - Scale is inlined into SumLoop but also runs as a function of its
//     own, called through a function value from ViaValue (pprof's
//     "partial-inline").
//
// `go build -gcflags=-m` of this package says "inlining call to" for each
// of these calls. The result measures a real run: it differs from run to
// run.
func GoInlinedCPUProfile(d time.Duration) ([]byte, error) {
	var b bytes.Buffer
	if err := pprof.StartCPUProfile(&b); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(d)
	var x uint64
	for time.Now().Before(deadline) {
		x = HashLoop(x, 1<<16)
		x = SumLoop(x, 1<<15)
		x = ViaValue(x, 1<<14)
	}
	pprof.StopCPUProfile()
	Sink = x
	return b.Bytes(), nil
}

// Mix scrambles x (small enough to be inlined).
func Mix(x uint64) uint64 {
	x ^= x >> 31
	x *= 0x9E3779B97F4A7C15
	return x ^ x>>29
}

// Step mixes x with i (inlined, and Mix inlined into it).
func Step(x uint64, i int) uint64 { return Mix(x + uint64(i)) }

// Rare is the rarely taken branch of HashLoop (inlined).
func Rare(x uint64) uint64 { return x*3 + 1 }

// Scale is inlined where it is called directly and runs on its own where
// it is called through a function value.
func Scale(x uint64) uint64 { return x*5 + 7 }

// scaler calls Scale through a function value: not inlined.
var scaler = Scale

// HashLoop runs n rounds of Step, and Rare once in about 128 rounds.
//
//go:noinline
func HashLoop(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x = Step(x, i)
		if x&127 == 0 {
			x = Rare(x)
		}
	}
	return x
}

// SumLoop runs n rounds of Scale and Mix, both inlined.
//
//go:noinline
func SumLoop(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x = Scale(x) + Mix(uint64(i))
	}
	return x
}

// ViaValue runs n rounds of Scale through a function value.
//
//go:noinline
func ViaValue(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x = scaler(x) ^ uint64(i)
	}
	return x
}
