//go:build !unix

package sampling

import "time"

// cpuTime is unknown here: the benchmarks report 0.
func cpuTime() time.Duration { return 0 }
