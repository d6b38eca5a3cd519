package importtest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Folded is folded-stacks text as stackcollapse-perf prints it (process
// name first, kernel frames with "_[k]" when run with --kernel): lines
// distinct stacks of a program of funcs functions (names with spaces and
// C++ punctuation among them), counts from a heavy-tailed law, lines in
// the order the seed gives (stackcollapse sorts them; the importer does
// not care). The same arguments give the same text.
func Folded(funcs, lines int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 0xf01d))
	names := make([]string, funcs)
	for i := range names {
		switch {
		case i%17 == 16:
			names[i] = fmt.Sprintf("sys_call_%d_[k]", i)
		case i%7 == 6:
			names[i] = fmt.Sprintf("ns::Widget<int>::method%d(unsigned long, char const*)", i)
		default:
			names[i] = fmt.Sprintf("fn_%d", i)
		}
	}
	seen := map[string]bool{}
	var b strings.Builder
	for len(seen) < lines {
		depth := 1 + rng.IntN(16)
		frames := []string{"prog", "main"}
		for range depth {
			frames = append(frames, names[heavy(rng, funcs)])
		}
		s := strings.Join(frames, ";")
		if seen[s] {
			continue
		}
		seen[s] = true
		fmt.Fprintf(&b, "%s %d\n", s, 1+int(1000*rng.Float64()*rng.Float64()*rng.Float64()))
	}
	return b.String()
}
