// Package suggest finds, among the names a program knows, the one a
// person most likely meant by a name it does not know: the "did you
// mean" of an error message. It imports the standard library only.
package suggest

import "strings"

// Closest returns the name of known nearest to name by case-insensitive
// edit distance, when that distance is at most a third of name's length
// (at least 2); otherwise "". Of names equally near, the first wins.
func Closest(name string, known []string) string {
	best, bestD := "", 0
	limit := max(2, len(name)/3)
	lower := strings.ToLower(name)
	for _, k := range known {
		d := Distance(lower, strings.ToLower(k))
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

// Distance is the Levenshtein distance of a and b, in runes: how many
// insertions, deletions and substitutions turn one into the other.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
