// Package config reads proflab's TOML configuration: the default machine,
// the HALs with their plugins and settings, run and output options. It is
// strict: a key proflab does not know or a value of the wrong type is an
// error naming the file, line and key.
//
// A configuration is built in layers: the embedded default ([Default]), then
// a user file ([Config.MergeFile]), then command-line overrides
// ([Config.Set]); each layer replaces only the keys it defines (a HAL's
// settings table merges key by key too).
package config

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

//go:embed default.toml
var defaultTOML []byte

//go:embed sample.toml
var sampleTOML string

// Sample returns the commented sample configuration `proflab config init`
// prints. It loads back to the same values as Default.
func Sample() string { return sampleTOML }

// Config is a whole configuration.
type Config struct {
	// Machine is the default machine of scenarios.
	Machine Machine `toml:"machine"`
	// HAL are the HALs by name, the names machine.hal and lab.machine{hal
	// = {...}} use.
	HAL map[string]HAL `toml:"hal"`
	// Run are run options.
	Run Run `toml:"run"`
	// Output are output options.
	Output Output `toml:"output"`

	origin map[string]string // dotted key → "file:line" where it was last set
}

// Machine is the `[machine]` table.
type Machine struct {
	Version   string   `toml:"version"`    // modelled Windows version ("10.0.19041")
	Arch      string   `toml:"arch"`       // "x86" or "x64"
	CPUs      int      `toml:"cpus"`       // 1–32 (x86) or 1–64 (x64)
	CPUVendor string   `toml:"cpu_vendor"` // "GenuineIntel" or "AuthenticAMD"
	PEBS      bool     `toml:"pebs"`       // processors pass the kernel's PEBS checks
	FreqMHz   int      `toml:"freq_mhz"`   // processor clock, MHz
	HAL       []string `toml:"hal"`        // HAL names, first supporting HAL owns a source
	Seed      int64    `toml:"seed"`       // seed of a run
}

// Transport values of HAL.Transport.
const (
	TransportPlugin = "plugin" // a separate plugin process (default)
	TransportInproc = "inproc" // the shipped HAL's logic in proflab's process
)

// HAL is one `[hal.NAME]` table.
type HAL struct {
	// Plugin is the executable's name (looked up beside proflab, in
	// PROFLAB_PLUGIN_PATH, then PATH) or path; with transport "inproc",
	// the shipped HAL's plugin name.
	Plugin string `toml:"plugin"`
	// SHA256 is the executable's expected sha256 in hex, or empty.
	SHA256 string `toml:"sha256"`
	// Transport is TransportPlugin (or empty) or TransportInproc.
	Transport string `toml:"transport"`
	// Timeout bounds each call to the plugin (0: the default, 10s).
	Timeout Duration `toml:"timeout"`
	// Settings is the HAL's own settings table, handed to it as JSON.
	Settings map[string]any `toml:"settings"`
}

// SettingsJSON returns the settings table as the JSON object the HAL
// decodes ("{}" when there are none).
func (h HAL) SettingsJSON() ([]byte, error) {
	if len(h.Settings) == 0 {
		return []byte("{}"), nil
	}
	return json.Marshal(h.Settings)
}

// Run is the `[run]` table.
type Run struct {
	// Timeout is a run's wall-clock budget.
	Timeout Duration `toml:"timeout"`
	// Memory is a run's memory budget (0: none).
	Memory ByteSize `toml:"memory"`
	// WorkloadDirs are the folders, besides a scenario's own, that it may
	// read workload files from (m:run{ workload = PATH }); a relative one
	// is relative to the configuration file's folder (core/scenario's
	// SetupFromConfig resolves them).
	WorkloadDirs []string `toml:"workload_dirs,omitempty"`
}

// Output is the `[output]` table.
type Output struct {
	Dir   string `toml:"dir"`   // `run`'s output folder when --out is not given ("": none)
	Pprof bool   `toml:"pprof"` // write a pprof profile per profile
	Trace bool   `toml:"trace"` // write the Perfetto trace (trace.perfetto-trace) when a kernel logger ran
	ETL   bool   `toml:"etl"`   // write each kernel logger machine's sessions as trace.etl and trace.symbols
}

// Duration is a time.Duration written as a string ("10s", "1m30s").
type Duration struct{ time.Duration }

// UnmarshalText parses a duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration like \"10s\" or \"1m30s\"", b)
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Default returns the embedded default configuration.
func Default() *Config {
	c, err := parse("<default>", defaultTOML, &Config{})
	if err != nil {
		panic("config: the embedded default does not load: " + err.Error()) // a build defect, caught by tests
	}
	return c
}

// defaultMachine is the embedded default's [machine] table, parsed once
// per process: lab.machine{} reads it in every run of a sweep.
var defaultMachine = sync.OnceValue(func() Machine { return Default().Machine })

// DefaultMachine returns the embedded default configuration's [machine]
// table, as Default().Machine does, without parsing the default again:
// the table is parsed once per process and each caller gets its own copy.
func DefaultMachine() Machine {
	m := defaultMachine()
	m.HAL = slices.Clone(m.HAL)
	return m
}

// Origin returns where key (dotted, "machine.cpus") was last set
// ("file:line", "<default>:12"), or "".
func (c *Config) Origin(key string) string { return c.origin[key] }

// HALNames returns the configured HAL names, sorted.
func (c *Config) HALNames() []string {
	out := make([]string, 0, len(c.HAL))
	for n := range c.HAL {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var sha256Re = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)

// Validate checks the values, naming the file, line and key of the first
// wrong ones.
func (c *Config) Validate() error {
	var errs []string
	bad := func(key, format string, args ...any) {
		where := c.origin[key]
		if where != "" {
			where += ": "
		}
		errs = append(errs, fmt.Sprintf("%s%s: %s", where, key, fmt.Sprintf(format, args...)))
	}
	m := c.Machine
	if m.Arch != "x86" && m.Arch != "x64" {
		bad("machine.arch", "%q, want \"x86\" or \"x64\"", m.Arch)
	}
	maxCPUs := 64
	if m.Arch == "x86" {
		maxCPUs = 32
	}
	if m.CPUs < 1 || m.CPUs > maxCPUs {
		bad("machine.cpus", "%d, want 1…%d on %s", m.CPUs, maxCPUs, m.Arch)
	}
	if m.CPUVendor != "GenuineIntel" && m.CPUVendor != "AuthenticAMD" {
		bad("machine.cpu_vendor", "%q, want \"GenuineIntel\" or \"AuthenticAMD\"", m.CPUVendor)
	}
	if m.FreqMHz < 1 || m.FreqMHz > 100_000 {
		bad("machine.freq_mhz", "%d, want 1…100000", m.FreqMHz)
	}
	if m.Version == "" {
		bad("machine.version", "empty, want a Windows version like \"10.0.19041\"")
	}
	if len(m.HAL) == 0 {
		bad("machine.hal", "empty: list at least one HAL, such as [\"apic\"] (configured: %s)", strings.Join(c.HALNames(), ", "))
	}
	if m.Seed < 0 {
		bad("machine.seed", "%d, want a seed >= 0", m.Seed)
	}
	for _, n := range m.HAL {
		if _, ok := c.HAL[n]; !ok {
			bad("machine.hal", "%q has no [hal.%s] table (configured: %s)", n, n, strings.Join(c.HALNames(), ", "))
		}
	}
	for _, n := range c.HALNames() {
		h := c.HAL[n]
		k := "hal." + n
		if h.Plugin == "" {
			bad(k+".plugin", "missing: say which plugin executable serves this HAL")
		}
		if h.Transport != "" && h.Transport != TransportPlugin && h.Transport != TransportInproc {
			bad(k+".transport", "%q, want %q or %q", h.Transport, TransportPlugin, TransportInproc)
		}
		if h.SHA256 != "" && !sha256Re.MatchString(h.SHA256) {
			bad(k+".sha256", "%q is not 64 hex digits (sha256sum prints it)", h.SHA256)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("configuration: %s", strings.Join(errs, "\n"))
}
