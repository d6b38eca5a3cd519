package tomlstrict

import (
	"testing"

	"github.com/BurntSushi/toml"
)

// KeyIndex gives the first line that defines a key: its table's header,
// its `key = value` line, or a line that sets a table holding it, with
// headers and keys normalized as KeyLine always read them.
func TestKeyIndex(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		key  toml.Key
		want int
	}{
		{"# comment\n[hal.apic]\nplugin = \"x\"\n[hal.apic.settings]\n\"quoted\" = 1\n", toml.Key{"hal", "apic"}, 2},
		{"# comment\n[hal.apic]\nplugin = \"x\"\n[hal.apic.settings]\n\"quoted\" = 1\n", toml.Key{"hal", "apic", "settings", "quoted"}, 5},
		{"# comment\n[hal.apic]\nplugin = \"x\"\n", toml.Key{"hal"}, 0}, // a header defines its own key only
		{"a.b = { c = 1 }\n[a]\nd = 2\n[a.b]\n", toml.Key{"a", "b", "c"}, 1},
		{"a.b = { c = 1 }\n[a]\nd = 2\n[a.b]\n", toml.Key{"a", "b"}, 1}, // the key line comes before the header
		{"a.b = { c = 1 }\n[a]\nd = 2\n[a.b]\n", toml.Key{"a"}, 2},
		{"a.b = { c = 1 }\n[a]\nd = 2\n[a.b]\n", toml.Key{"a", "d"}, 3},
		{"[x] # note\ny = 1\n[x]\ny = 2\n", toml.Key{"x", "y"}, 2}, // the first of two
		{"[[plot]]\nmetric = \"m\"\n[[plot]]\nmetric = \"n\"\n", toml.Key{"plot", "metric"}, 2},
		{"hal.pmu.settings.skid = 3\n", toml.Key{"hal", "pmu", "settings", "skid", "deeper"}, 1},
		{"machine = { cpus = 4 }\n  [ machine . x ]  \n z=1\n", toml.Key{"machine", "x", "z"}, 1}, // machine = {...} holds it
		{"  [ machine . x ]  \n z=1\n", toml.Key{"machine", "x", "z"}, 2},
		{"ab = 1\n", toml.Key{"a"}, 0}, // a prefix only at a dot
		{"no equals here\n[\n=\n", toml.Key{"none"}, 0},
		{"", toml.Key{"a"}, 0},
	} {
		if got := NewKeyIndex([]byte(tc.doc)).Line(tc.key); got != tc.want {
			t.Errorf("%q, key %v: line %d, want %d", tc.doc, tc.key, got, tc.want)
		}
		if got := KeyLine([]byte(tc.doc), tc.key); got != tc.want {
			t.Errorf("KeyLine(%q, %v) = %d, want %d", tc.doc, tc.key, got, tc.want)
		}
	}
}
