package scenario

import (
	"strings"
	"testing"
)

// --set with nan or ±inf, alone or inside a list or a table, is bad
// input naming the flag (issue 20, item 13): such a value cannot be
// encoded into result.json or results.jsonl.
func TestParseSetRefusesNonFiniteNumbers(t *testing.T) {
	for in, want := range map[string]string{
		"x=nan":         "--set x=nan: nan is not a finite number",
		"x=+nan":        "--set x=+nan: nan is not a finite number",
		"x=inf":         "--set x=inf: inf is not a finite number",
		"x=-inf":        "--set x=-inf: -inf is not a finite number",
		"l=[1.0, -inf]": "--set l=[1.0, -inf]: -inf is not a finite number",
		"t={a = nan}":   "--set t={a = nan}: nan is not a finite number",
	} {
		_, _, err := ParseSet(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSet(%q) = %v; want an error saying %q", in, err, want)
		}
	}
	if _, err := ParseSets([]string{"ok=1", "x=nan"}); err == nil || !strings.Contains(err.Error(), "--set x=nan") {
		t.Errorf("ParseSets(x=nan) = %v; want an error naming --set x=nan", err)
	}
}
