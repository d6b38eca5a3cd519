package tomlstrict

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// scanLine is KeyLine as it was, a pass over the document per key: the
// index must give its answers.
func scanLine(data []byte, key toml.Key) int {
	want := strings.Join(key, ".")
	var table string
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "[") {
			table = normKey(strings.Trim(strings.SplitN(line, "#", 2)[0], " \t[]"))
			if table == want {
				return i + 1
			}
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		full := normKey(k)
		if table != "" {
			full = table + "." + full
		}
		if full == want || strings.HasPrefix(want, full+".") {
			return i + 1
		}
	}
	return 0
}

func TestKeyIndexIsKeyLine(t *testing.T) {
	docs := []string{
		"# comment\n[hal.apic]\nplugin = \"x\"\n[hal.apic.settings]\n\"quoted\" = 1\n",
		"a.b = { c = 1 }\n[a]\nd = 2\n[a.b]\n",
		"[x] # note\ny = 1\n[x]\ny = 2\n[[plot]]\nmetric = \"m\"\n[[plot]]\nmetric = \"n\"\n",
		"hal.pmu.settings.skid = 3\nmachine = { cpus = 4, hal = [\"apic\"] }\n  [ machine . x ]  \n z=1\n",
		"",
		"no equals here\n[\n=\n",
	}
	keys := []toml.Key{{"hal"}, {"hal", "apic"}, {"hal", "apic", "plugin"}, {"hal", "apic", "settings", "quoted"},
		{"a"}, {"a", "b"}, {"a", "b", "c"}, {"a", "d"}, {"x"}, {"x", "y"}, {"plot"}, {"plot", "metric"},
		{"hal", "pmu", "settings", "skid"}, {"hal", "pmu"}, {"machine"}, {"machine", "cpus"}, {"machine", "x", "z"}, {"none"}, {""}}
	for _, d := range docs {
		x := NewKeyIndex([]byte(d))
		for _, k := range keys {
			if got, want := x.Line(k), scanLine([]byte(d), k); got != want {
				t.Errorf("%q, key %v: line %d, want %d", d, k, got, want)
			}
		}
	}
}
