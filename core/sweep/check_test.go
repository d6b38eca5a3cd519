package sweep_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep"
)

// Every distinct configuration of a sweep is resolved and checked before
// its first run: a version the lab does not model, a HAL setting out of
// range or a configuration key that does not exist stops the sweep at
// once, naming the sweep file's [config] line and the grid value, and
// nothing is written.
func TestEveryConfigurationIsCheckedFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.lua"), []byte("local lab = require \"proflab\"\nlab.record{ v = lab.machine{}:version() }\n"), 0o644)
	inproc, _ := filepath.Abs(filepath.Join("testdata", "inproc.toml"))
	for _, tt := range []struct {
		name, body string
		want       []string
	}{
		{"version", "[grid]\nversion = [\"6.1\", \"11.0\"]\n[config]\nversion = \"machine.version\"\n",
			[]string{"s.toml:6: machine.version: unknown Windows version \"11.0\"", "with version = \"11.0\""}},
		{"setting", "[grid]\ncounters = [4, 99]\n[config]\ncounters = \"hal.pmu.settings.counters\"\n",
			[]string{"s.toml:6: hal.pmu.settings.counters: setting counters = 99, want 1…8", "with counters = 99"}},
		{"key", "[grid]\nskid = [1, 2]\n[config]\nskid = \"hal.pmu.settingz.skid\"\n",
			[]string{"s.toml:6: unknown key \"hal.pmu.settingz.skid\""}},
	} {
		path := filepath.Join(dir, tt.name, "s.toml")
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(filepath.Join(filepath.Dir(path), "s.lua"), []byte("local lab = require \"proflab\"\nlab.record{ v = lab.machine{}:version() }\n"), 0o644)
		os.WriteFile(path, []byte("scenario = \"s.lua\"\nconfig_file = "+quote(inproc)+"\n"+tt.body), 0o644)
		f, err := sweep.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := sweep.Expand(f, nil)
		if err == nil {
			out := filepath.Join(dir, tt.name, "out")
			_, err = execute(p, out, sweep.Options{})
			if _, statErr := os.Stat(out); statErr == nil {
				t.Errorf("%s: the refused sweep made its output folder", tt.name)
			}
		}
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant %q", tt.name, err, w)
			}
		}
		if err != nil && strings.Contains(err.Error(), "--config-set") {
			t.Errorf("%s: names a --config-set flag nobody typed: %v", tt.name, err)
		}
	}
}
