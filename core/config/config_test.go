package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"time"

	"github.com/BurntSushi/toml"
)

func TestDefault(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := c.Machine.HAL; !reflect.DeepEqual(got, []string{"apic", "pmu", "pebs"}) {
		t.Errorf("machine.hal = %v", got)
	}
	for _, n := range []string{"apic", "pmu", "pebs"} {
		h := c.HAL[n]
		if h.Plugin != "proflab-hal-"+n || h.Transport != TransportPlugin || h.Timeout.Duration != 10*time.Second {
			t.Errorf("hal.%s = %+v", n, h)
		}
	}
}

func TestSampleLoadsBack(t *testing.T) {
	c := Default()
	if err := c.Merge("sample.toml", []byte(Sample())); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	d := Default()
	c.origin, d.origin = nil, nil
	if !reflect.DeepEqual(c.Machine, d.Machine) || !reflect.DeepEqual(c.Run, d.Run) || !reflect.DeepEqual(c.Output, d.Output) {
		t.Errorf("the sample differs from the default:\n%+v\n%+v", c, d)
	}
	if got := c.HAL["pmu"].Settings["counters"]; got != int64(4) {
		t.Errorf("sample pmu counters = %#v", got)
	}
}

func TestErrorsNameFileLineAndKey(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"unknown top-level key", "[machine]\ncpus = 2\n\n[machin]\ncpus = 3\n", []string{"f.toml:4", `"machin" (did you mean "machine"?)`}},
		{"unknown machine key", "[machine]\ncpus = 2\ncpu = 3\n", []string{"f.toml:3", `"machine.cpu" (did you mean "machine.cpus"?)`}},
		{"unknown run key", "[run]\nmemroy = \"1GiB\"\n", []string{"f.toml:2", `"run.memroy" (did you mean "run.memory"?)`}},
		{"unknown hal key", "[hal.apic]\nplugin = \"x\"\ncounters = 2\n", []string{"f.toml:3", `"hal.apic.counters"`, "[hal.apic.settings]"}},
		{"misspelt hal key", "[hal.apic]\nplugn = \"x\"\n", []string{"f.toml:2", `"hal.apic.plugn" (did you mean "hal.apic.plugin"?); a HAL's own settings go in [hal.apic.settings]`}},
		{"misspelt output key", "[output]\nppfor = true\n", []string{"f.toml:2", `"output.ppfor" (did you mean "output.pprof"?)`}},
		{"wrong type", "[machine]\n\ncpus = \"four\"\n", []string{"f.toml:3", "machine.cpus"}},
		{"bad duration", "[hal.apic]\ntimeout = \"soon\"\n", []string{"f.toml:2", "hal.apic.timeout", "duration"}},
		{"syntax", "[machine\n", []string{"f.toml:2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Default().Merge("f.toml", []byte(tt.doc))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestValidateNamesOrigin(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"[machine]\ncpus = 100\n", "f.toml:2: machine.cpus: 100"},
		{"[machine]\narch = \"x86\"\ncpus = 33\n", "machine.cpus: 33, want 1…32 on x86"},
		{"[machine]\nhal = [\"apic\", \"nope\"]\n", `"nope" has no [hal.nope] table`},
		{"[hal.x]\ntransport = \"tcp\"\n", "hal.x.plugin: missing"},
		{"[hal.apic]\ntransport = \"tcp\"\n", `f.toml:2: hal.apic.transport: "tcp"`},
		{"[hal.apic]\nsha256 = \"abc\"\n", "not 64 hex digits"},
		{"[machine]\ncpu_vendor = \"Cyrix\"\n", "machine.cpu_vendor"},
	}
	for _, tt := range tests {
		c := Default()
		if err := c.Merge("f.toml", []byte(tt.doc)); err != nil {
			t.Fatal(err)
		}
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.doc, err, tt.want)
		}
	}
}

func TestMergeKeepsWhatTheFileDoesNotSay(t *testing.T) {
	c := Default()
	doc := "[machine]\ncpus = 8\n[hal.pmu.settings]\ncounters = 2\n[hal.mine]\nplugin = \"/x/mine\"\n"
	if err := c.Merge("f.toml", []byte(doc)); err != nil {
		t.Fatal(err)
	}
	if c.Machine.CPUs != 8 || c.Machine.Arch != "x64" || c.Machine.FreqMHz != 3000 {
		t.Errorf("machine = %+v", c.Machine)
	}
	pmu := c.HAL["pmu"]
	if pmu.Plugin != "proflab-hal-pmu" || pmu.Settings["counters"] != int64(2) || pmu.Timeout.Duration != 10*time.Second {
		t.Errorf("hal.pmu = %+v", pmu)
	}
	if c.HAL["mine"].Plugin != "/x/mine" {
		t.Errorf("hal.mine = %+v", c.HAL["mine"])
	}
	if Default().HAL["pmu"].Settings != nil {
		t.Error("merging changed the default")
	}
}

func TestSet(t *testing.T) {
	c := Default()
	for _, s := range []string{"machine.cpus=2", "machine.version=6.1", "hal.pmu.settings.counters = 3", `hal.apic.settings.skid=[{instructions=1, weight=1}]`, "run.timeout=1m"} {
		if err := c.Set(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if c.Machine.CPUs != 2 || c.Machine.Version != "6.1" || c.HAL["pmu"].Settings["counters"] != int64(3) || c.Run.Timeout.Duration != time.Minute {
		t.Errorf("after --set: %+v %+v", c.Machine, c.HAL["pmu"])
	}
	for _, bad := range []string{"machine.cpus", "=3", "machine.cpuz=3", "machine.cpus=many"} {
		if err := c.Set(bad); err == nil {
			t.Errorf("--set %q: no error", bad)
		}
	}
	if err := c.Set("machine.cpuz=3"); err == nil || !strings.Contains(err.Error(), `unknown key "machine.cpuz" (did you mean "machine.cpus"?)`) {
		t.Errorf("--config-set machine.cpuz=3: %v, want a suggestion", err)
	}
}

func TestLoadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lab.toml")
	if err := os.WriteFile(p, []byte("[machine]\ncpus = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil || c.Machine.CPUs != 2 {
		t.Fatalf("Load: %v %+v", err, c)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.toml")); err == nil {
		t.Fatal("missing file: no error")
	}
}

func TestSettingsJSON(t *testing.T) {
	c := Default()
	if err := c.Set("hal.pmu.settings.skid=[{instructions=2, weight=1}]"); err != nil {
		t.Fatal(err)
	}
	b, err := c.HAL["pmu"].SettingsJSON()
	if err != nil || string(b) != `{"skid":[{"instructions":2,"weight":1}]}` {
		t.Fatalf("%s %v", b, err)
	}
	if b, _ := c.HAL["apic"].SettingsJSON(); string(b) != "{}" {
		t.Fatalf("empty settings: %s", b)
	}
}

func FuzzMerge(f *testing.F) {
	f.Add([]byte(Sample()))
	f.Add([]byte("[machine]\ncpus = 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := Default()
		if c.Merge("fuzz.toml", data) != nil || c.Validate() != nil {
			return
		}
		// A configuration that loads writes out (config.toml of a run
		// folder) as TOML that loads back to the same configuration.
		var b bytes.Buffer
		if err := toml.NewEncoder(&b).Encode(c); err != nil {
			t.Fatalf("encode: %v", err)
		}
		back := Default()
		if err := back.Merge("back.toml", b.Bytes()); err != nil {
			t.Fatalf("the encoded configuration does not load: %v\n%s", err, b.String())
		}
		if err := back.Validate(); err != nil {
			t.Fatalf("the encoded configuration is not valid: %v\n%s", err, b.String())
		}
		if !reflect.DeepEqual(c.Machine, back.Machine) || !reflect.DeepEqual(c.Run, back.Run) || !reflect.DeepEqual(c.Output, back.Output) || !reflect.DeepEqual(c.HALNames(), back.HALNames()) {
			t.Fatalf("round trip changed the configuration:\n%+v\n%+v\n%s", c, back, b.String())
		}
		for _, n := range c.HALNames() {
			// Settings compare as the plugin receives them (JSON): TOML
			// decodes an array of tables as []map[string]any.
			h, hb := c.HAL[n], back.HAL[n]
			sj, err1 := h.SettingsJSON()
			sjb, err2 := hb.SettingsJSON()
			h.Settings, hb.Settings = nil, nil
			if !reflect.DeepEqual(h, hb) || string(sj) != string(sjb) || (err1 == nil) != (err2 == nil) {
				t.Fatalf("round trip changed [hal.%s]:\n%+v %s\n%+v %s\n%s", n, c.HAL[n], sj, back.HAL[n], sjb, b.String())
			}
		}
	})
}

func TestByteSize(t *testing.T) {
	for in, want := range map[string]ByteSize{"1GiB": 1 << 30, "512MiB": 512 << 20, "1.5KiB": 1536, "2GB": 2e9, "4096": 4096, "0": 0, "none": 0, " 3 M ": 3 << 20} {
		got, err := ParseByteSize(in)
		if err != nil || got != want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1GiB", "lots", "1PiB", "1e30"} {
		if _, err := ParseByteSize(in); err == nil {
			t.Errorf("ParseByteSize(%q) accepted", in)
		}
	}
	for n, want := range map[ByteSize]string{1 << 30: "1GiB", 1536: "1536", 3 << 20: "3MiB", 0: "0"} {
		if got := n.String(); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", int64(n), got, want)
		}
		if back, err := ParseByteSize(n.String()); err != nil || back != n {
			t.Errorf("round trip of %d: %d, %v", int64(n), back, err)
		}
	}
	c := Default()
	if c.Run.Memory != 1<<30 {
		t.Errorf("default run.memory %d, want 1GiB", int64(c.Run.Memory))
	}
	if err := c.Set(`run.memory="12MB"`); err != nil || c.Run.Memory != 12e6 {
		t.Errorf("--config-set run.memory: %d, %v", int64(c.Run.Memory), err)
	}
	if err := c.Set(`run.memory="lots"`); err == nil || !strings.Contains(err.Error(), "run.memory") {
		t.Errorf("a bad run.memory: %v, want an error naming the key", err)
	}
}

// A plugin path in a configuration file is relative to the file's folder
// (as a sweep's config_file is to the sweep file), so a configuration
// means the same from any working directory; a bare name is still looked
// up, and an absolute path stays.
func TestPluginPathsRelativeToTheirFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "lab.toml")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("[hal.x]\nplugin = \"./bin/proflab-hal-x\"\n[hal.y]\nplugin = \"proflab-hal-y\"\n[hal.z]\nplugin = \"/opt/z\"\n"), 0o644)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"x": filepath.Join(dir, "sub", "bin", "proflab-hal-x"), "y": "proflab-hal-y", "z": "/opt/z"}
	for name, w := range want {
		if got := c.HAL[name].Plugin; got != w {
			t.Errorf("hal.%s.plugin = %q, want %q", name, got, w)
		}
	}
}

// A configuration file named by a relative path ("lab.toml") keeps its
// plugin paths paths: joined to the file's folder, not turned into a bare
// name that the search would look up elsewhere.
func TestPluginPathOfAFileInTheWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "lab.toml"), []byte("[hal.x]\nplugin = \"./proflab-hal-x\"\n"), 0o644)
	t.Chdir(dir)
	c, err := Load("lab.toml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.HAL["x"].Plugin, filepath.Join(dir, "proflab-hal-x"); got != want {
		t.Errorf("plugin %q, want %q", got, want)
	}
}

// BenchmarkDefault is loading the embedded default configuration, which a
// lab made without a configuration file does (labtest.New, a scenario's
// lab.machine{} with no [machine]).
func BenchmarkDefault(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if Default().Machine.CPUs == 0 {
			b.Fatal("no cpus")
		}
	}
}

func TestDefaultMachineIsTheDefaultsMachineAndACopy(t *testing.T) {
	want := Default().Machine
	got := DefaultMachine()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DefaultMachine() = %+v, Default().Machine = %+v", got, want)
	}
	if len(got.HAL) == 0 {
		t.Fatal("the default machine lists no HAL: nothing below tests the copy")
	}
	got.HAL[0] = "changed"
	got.HAL = append(got.HAL, "more")
	got.CPUs = 99
	if again := DefaultMachine(); !reflect.DeepEqual(again, want) {
		t.Errorf("a caller's change reached the next caller: %+v, want %+v", again, want)
	}
}
