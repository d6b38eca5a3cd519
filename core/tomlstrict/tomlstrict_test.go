package tomlstrict

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

type doc struct {
	Machine struct {
		CPUs int    `toml:"cpus"`
		Name string `toml:"name"`
	} `toml:"machine"`
	Free    map[string]any            `toml:"free"`
	HAL     map[string]hal            `toml:"hal"`
	Process []process                 `toml:"process"`
	Run     *struct{ Timeout string } `toml:"run"`
	common
}

type hal struct {
	Plugin   string         `toml:"plugin"`
	Timeout  string         `toml:"timeout"`
	Skip     string         `toml:"-"`
	Settings map[string]any `toml:"settings"`
}

type process struct {
	Name    string `toml:"name"`
	Threads int    `toml:"threads"`
}

type common struct {
	Scenario string `toml:"scenario"`
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, data string
		want       []string // substrings of the error; none: success
	}{
		{"ok", "[machine]\ncpus = 2\nname = \"x\"\n", nil},
		{"unknown key", "[machine]\ncpus = 2\ncpu = 3\n", []string{`f.toml:3: unknown key "machine.cpu" (did you mean "machine.cpus"?); hint`}},
		{"unknown table", "[machin]\ncpus = 2\nname = \"x\"\n", []string{`f.toml:1: unknown key "machin" (did you mean "machine"?)`}},
		{"nothing near", "[machine]\nvendor = 1\n", []string{`f.toml:2: unknown key "machine.vendor"`}},
		{"in a map of tables", "[hal.apic]\nplugn = \"x\"\n", []string{`f.toml:2: unknown key "hal.apic.plugn" (did you mean "hal.apic.plugin"?)`}},
		{"a field TOML skips", "[hal.apic]\nskip = \"x\"\n", []string{`f.toml:2: unknown key "hal.apic.skip"`}},
		{"in an array of tables", "[[process]]\nname = \"a\"\nthread = 2\n", []string{`f.toml:3: unknown key "process.thread" (did you mean "process.threads"?)`}},
		{"untagged field", "[run]\ntimout = \"1s\"\n", []string{`f.toml:2: unknown key "run.timout" (did you mean "run.Timeout"?)`}},
		{"embedded struct", "scenari = \"s.lua\"\n", []string{`f.toml:1: unknown key "scenari" (did you mean "scenario"?)`}},
		{"two unknown keys", "bogus = 1\n[machine]\nzzzz = 2\n", []string{`f.toml:1: unknown key "bogus"`, `f.toml:3: unknown key "machine.zzzz"`}},
		{"wrong type", "[machine]\n\ncpus = \"four\"\n", []string{`f.toml:3`, `machine.cpus`}},
		{"syntax", "[machine\ncpus = 2\n", []string{"f.toml:2", "table name"}},
		{"ignored free table", "[free]\nanything = 1\n[free.deeper]\nx = 2\n", nil},
		{"dotted key", "machine.bad = 1\n", []string{`f.toml:1: unknown key "machine.bad"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d doc
			_, err := Decode("f.toml", []byte(tc.data), &d, Options{
				Ignore: func(k toml.Key) bool { return k[0] == "free" },
				Hint:   func(k toml.Key) string { return map[bool]string{true: "; hint"}[k.String() == "machine.cpu"] },
			})
			if err != nil && strings.Contains(err.Error(), "did you mean") != strings.Contains(strings.Join(tc.want, ""), "did you mean") {
				t.Errorf("error %q: a suggestion where none was wanted, or none", err)
			}
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestKeyLine(t *testing.T) {
	data := []byte("# comment\n[hal.apic]\nplugin = \"x\"\n[hal.apic.settings]\n\"quoted\" = 1\n")
	for _, tc := range []struct {
		key  toml.Key
		want int
	}{
		{toml.Key{"hal", "apic"}, 2}, {toml.Key{"hal", "apic", "plugin"}, 3}, {toml.Key{"hal", "apic", "settings", "quoted"}, 5}, {toml.Key{"none"}, 0},
	} {
		if got := KeyLine(data, tc.key); got != tc.want {
			t.Errorf("%v: line %d, want %d", tc.key, got, tc.want)
		}
	}
	if Where("f", 0) != "f" || Where("f", 3) != "f:3" {
		t.Error("Where")
	}
}

// The keys inside an unknown table say nothing more than the table: one
// line for it, not one per key.
func TestDecodeReportsAnUnknownTableOnce(t *testing.T) {
	var d doc
	_, err := Decode("f.toml", []byte("[gird]\na = [1]\nb = 2\n[machine]\ncpu = 1\n"), &d, Options{})
	want := `f.toml:1: unknown key "gird"` + "\n" + `f.toml:5: unknown key "machine.cpu" (did you mean "machine.cpus"?)`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}
