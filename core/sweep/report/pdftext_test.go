package report

import "testing"

// The PDF's fonts encode Windows-1252: what they have passes as it is
// (µ, ±, ·, –), what they lack is spelt in ASCII or "?".
func TestPDFSafe(t *testing.T) {
	for in, want := range map[string]string{
		"c/√samples":   "c/sqrt samples",
		"−1 ≤ x":       "-1 <= x",
		"µs ± 2 · 3 –": "µs ± 2 · 3 –",
		"λ ✓":          "lambda ?",
		"plain":        "plain",
	} {
		if got := pdfSafe(in); got != want {
			t.Errorf("pdfSafe(%q) = %q, want %q", in, got, want)
		}
	}
}
