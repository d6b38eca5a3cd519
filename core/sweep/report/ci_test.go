package report

import (
	"math"
	"strings"
	"testing"
)

// Student's t 0.975 quantiles: the table, and the expansion past it
// within 1e-3 of the exact values (R: qt(0.975, df)).
func TestTQuantile(t *testing.T) {
	for df, want := range map[int]float64{1: 12.7062, 2: 4.3027, 10: 2.2281, 30: 2.0423, 40: 2.0211, 60: 2.0003, 120: 1.9799, 1000: 1.9623} {
		if got := tQuantile975(df); math.Abs(got-want) > 1e-3 {
			t.Errorf("t(0.975, %d) = %.4f, want %.4f", df, got, want)
		}
	}
	if (stats{n: 1, mean: 3}).ci() != "" {
		t.Error("a confidence interval from one repeat")
	}
}

// A parameter or metric holding a | or a line break cannot break a
// Markdown table: each row stays one line of the same cells.
func TestMarkdownCellsEscaped(t *testing.T) {
	row := mdRow([]string{"a|b", "line\nbreak", "x\r\ny"})
	if row != "| a\\|b | line break | x y |\n" || strings.Count(row, "\n") != 1 {
		t.Errorf("row %q", row)
	}
}
