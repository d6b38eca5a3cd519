package sweep

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/proflab/proflab/core/scenario"
)

// A file a run read in two versions is mixed for the sweep, as a plugin
// restarted from another build within a run is; one read in one version
// is not.
func TestRunReadingTwoVersionsIsMixed(t *testing.T) {
	base := t.TempDir()
	w := filepath.Join(base, "w.toml")
	other := filepath.Join(base, "other.toml")
	for _, tt := range []struct {
		name     string
		versions map[string][]string
		want     []string
	}{
		{"one version each", nil, nil},
		{"w.toml replaced within the run", map[string][]string{w: {"aa", "bb"}}, []string{"w.toml"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := &dependencies{base: base, inputs: map[string]string{}, mixed: map[string]bool{}}
			res := scenario.Result{ProflabVersion: "v", Inputs: map[string]string{w: "bb", other: "cc"}, InputVersions: tt.versions}
			used, mixed := usedInputs(res)
			d.add(used, mixed)
			if got := d.mixedKeys(); !slices.Equal(got, tt.want) {
				t.Errorf("mixed %v, want %v", got, tt.want)
			}
			if d.inputs["w.toml"] != "bb" || d.inputs["other.toml"] != "cc" {
				t.Errorf("inputs %v", d.inputs)
			}
		})
	}
}
