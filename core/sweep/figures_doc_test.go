package sweep

import (
	"os"
	"strings"
	"testing"
)

// Every key a [[plot]] table takes is in the README's sweep file
// example and its Plots paragraph, so that a newcomer can use it from
// the docs alone.
func TestPlotKeysDocumented(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "[[plot]]                          # optional")
	plots := strings.Index(readme, "Plots. ")
	if start < 0 || plots < 0 {
		t.Fatal("the README has no [[plot]] example or no Plots paragraph")
	}
	example := readme[start : start+strings.Index(readme[start:], "```")]
	paragraph := readme[plots : plots+strings.Index(readme[plots:], "\n\n")]
	for _, k := range plotKeys {
		if !strings.Contains(example, "\n"+k+" = ") {
			t.Errorf("the README's [[plot]] example lacks %s", k)
		}
		if k != "title" && !strings.Contains(paragraph, "`"+k) {
			t.Errorf("the README's Plots paragraph does not explain %s", k)
		}
	}
}
