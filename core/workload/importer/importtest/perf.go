package importtest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// perfFn is a function of PerfScript's program: name, dso, address.
type perfFn struct {
	name, dso string
	addr      uint64
}

// The program PerfScript samples: prog's functions, libc's and the
// kernel's, at Linux x64 addresses.
var (
	perfProg = []perfFn{
		{"main", "/usr/bin/prog", 0x55d0c1a2b3a0},
		{"parse_input", "/usr/bin/prog", 0x55d0c1a2c000},
		{"compute", "/usr/bin/prog", 0x55d0c1a2d000},
		{"hash_block", "/usr/bin/prog", 0x55d0c1a2e000},
		{"std::vector<int>::push_back(int const&)", "/usr/bin/prog", 0x55d0c1a2f000},
	}
	perfLibc = []perfFn{
		{"__libc_start_main", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7f3a1b229d00},
		{"__memcpy_avx_unaligned_erms", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7f3a1b3a0000},
		{"[unknown]", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7f3a1b2c3d00},
	}
	perfKernel = []perfFn{
		{"entry_SYSCALL_64_after_hwframe", "[kernel.kallsyms]", 0xffffffff81a00000},
		{"do_syscall_64", "[kernel.kallsyms]", 0xffffffff81900000},
		{"copy_user_enhanced_fast_string", "[kernel.kallsyms]", 0xffffffff81500000},
	}
)

// PerfScript is `perf script` text (perf record -g -e cycles,instructions)
// of a two-thread program: n samples of cycles and n/2 of instructions,
// leaf weights chosen by the seed, user stacks under main and
// __libc_start_main, some through a system call into the kernel, one
// libc frame unsymbolized ([unknown]). Periods vary as with perf record
// -F. The same arguments give the same text.
func PerfScript(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 0x9e7f))
	var b strings.Builder
	t := 5000.0
	for i := range n + n/2 {
		ev, period := "cycles:u", 200000+rng.IntN(100000)
		if i >= n {
			ev, period = "instructions:u", 150000+rng.IntN(300000)
		}
		tid := 1234 + rng.IntN(2)
		t += 0.00025
		fmt.Fprintf(&b, "%16s %5d/%-5d [%03d] %12.6f: %10d %s: \n", "prog", 1234, tid, tid-1234, t, period, ev)
		for _, f := range perfStack(rng) {
			off := uint64(rng.IntN(16)) * 4
			sym := f.name
			if sym != "[unknown]" {
				sym = fmt.Sprintf("%s+0x%x", sym, off)
			}
			fmt.Fprintf(&b, "\t%16x %s (%s)\n", f.addr+off, sym, f.dso)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// perfStack draws a stack, leaf first.
func perfStack(rng *rand.Rand) []perfFn {
	base := []perfFn{perfProg[0], perfLibc[0]}
	switch x := rng.IntN(100); {
	case x < 40:
		return append([]perfFn{perfProg[2]}, base...)
	case x < 60:
		return append([]perfFn{perfProg[3], perfProg[2]}, base...)
	case x < 70:
		return append([]perfFn{perfProg[4], perfProg[1]}, base...)
	case x < 80:
		return append([]perfFn{perfLibc[1], perfProg[1]}, base...)
	case x < 85:
		return append([]perfFn{perfLibc[2], perfProg[3], perfProg[2]}, base...)
	default:
		return append([]perfFn{perfKernel[2], perfKernel[1], perfKernel[0], perfProg[1]}, base...)
	}
}
