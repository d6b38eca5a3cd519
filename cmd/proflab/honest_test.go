package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// profiling is a scenario on the configured default machine that profiles
// a workload with call structure by time, with a kernel logger running.
const profiling = `
local lab = require "proflab"
local m = lab.machine{ cpus = 2 }
local p = m:process{ name = "app", privileges = {"SeSystemProfilePrivilege"} }
local s = m:start_kernel_logger{ profile = true }
local buf, hp = p:alloc(0x1000), p:alloc(8)
p:NtCreateProfile(hp, -1, 0x10000, 0xC00, 6, buf, 0x1000, lab.ProfileTime, 3)
p:NtStartProfile(p:read_u64(hp))
p:NtSetIntervalProfile(10000, lab.ProfileTime)
print("running")
local r = m:run{ duration_us = 100000, workload = { process = p, functions = {
  { name = "main", base = 0x10000, size = 0x400, weight = 2 },
  { name = "parse", base = 0x10400, size = 0x400, weight = 3, caller = "main" },
  { name = "lex", base = 0x10800, size = 0x400, weight = 5, caller = "parse" },
} } }
lab.check(r.interrupts.ProfileTime > 0, "interrupts")
s:stop()
`

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	return writeScenario(t, dir, name, text)
}

func TestConfigCheckAsksTheHALs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"unknown setting", "[hal.pmu]\nplugin = \"proflab-hal-pmu\"\n[hal.pmu.settings]\ncounters = 4\ncountrs = 2\n",
			[]string{"bad.toml:5: hal.pmu.settings.countrs", `unknown setting "countrs"`}},
		{"wrong type", "[hal.apic.settings]\n\nmin = \"fast\"\n",
			[]string{"bad.toml:3: hal.apic.settings.min", "got a string"}},
		{"missing plugin", "[hal.mine]\nplugin = \"/no/such/plugin\"\n",
			[]string{"bad.toml:2: hal.mine.plugin", "/no/such/plugin", "not found"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeFile(t, dir, tc.name+"/bad.toml", tc.doc)
			code, out, errOut := runCLI("config", "check", "--config", cfg)
			if code != ExitUsage || strings.Contains(out, "configuration OK") {
				t.Errorf("config check: code %d, out %q", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("config check: stderr lacks %q:\n%s", w, errOut)
				}
			}
			// a run refuses it before the scenario starts
			sc := writeScenario(t, dir, tc.name+"/s.lua", `print("started")`)
			code, out, errOut = runCLI("run", sc, "--config", cfg)
			if code != ExitUsage || strings.Contains(out, "started") || !strings.Contains(errOut, tc.want[0]) {
				t.Errorf("run: code %d, out %q, stderr:\n%s", code, out, errOut)
			}
		})
	}
	// an override names itself
	if code, _, errOut := runCLI("config", "check", "--config-set", `hal.pmu.settings.counters="four"`); code != ExitUsage ||
		!strings.Contains(errOut, "--config-set hal.pmu.settings.counters:1: hal.pmu.settings.counters: setting \"counters\": got a string") {
		t.Errorf("--config-set: code %d, stderr:\n%s", code, errOut)
	}
	if code, out, errOut := runCLI("config", "check"); code != ExitOK || !strings.Contains(out, "configuration OK") {
		t.Errorf("the default: code %d %s %s", code, out, errOut)
	}
}

func TestRunFolderIsWhatWasInForce(t *testing.T) {
	dir := t.TempDir()
	sc := writeScenario(t, dir, "p.lua", profiling)
	cfg := writeFile(t, dir, "lab.toml", "[hal.mine]\nplugin = \"proflab-hal-apic\"\n")
	out := filepath.Join(dir, "out")
	if code, stdout, errOut := runCLI("run", sc, "--config", cfg, "--out", out); code != ExitOK {
		t.Fatalf("code %d\n%s\n%s", code, stdout, errOut)
	}
	c, err := os.ReadFile(filepath.Join(out, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// the shipped HALs' own settings, and the custom HAL's transport and timeout
	for _, w := range []string{"[hal.pmu.settings]", "[hal.pebs.settings]", "record_size = 192", "[hal.mine]\n    plugin = \"proflab-hal-apic\"\n    sha256 = \"\"\n    transport = \"plugin\"\n    timeout = \"10s\""} {
		if !strings.Contains(string(c), w) {
			t.Errorf("config.toml lacks %q:\n%s", w, c)
		}
	}
	var res struct {
		Version string `json:"proflab_version"`
		Plugins []struct {
			HAL, Path, SHA256, Transport string
			Protocol                     int
		} `json:"plugins"`
		Files []string `json:"files"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "result.json"))
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Version == "" || len(res.Plugins) != 4 {
		t.Fatalf("result.json: %s", b)
	}
	for _, p := range res.Plugins {
		if !filepath.IsAbs(p.Path) || len(p.SHA256) != 64 || p.Protocol != 1 || p.Transport != "plugin" {
			t.Errorf("plugin %+v", p)
		}
	}
	// the profile has units and stacks
	var pb string
	for _, f := range res.Files {
		if strings.HasSuffix(f, ".pb.gz") {
			pb = f
		}
	}
	data, _ := os.ReadFile(filepath.Join(out, pb))
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	if p.Period != 1_000_000 || p.PeriodType.Unit != "nanoseconds" {
		t.Errorf("period %d %v", p.Period, p.PeriodType)
	}
	stacks := 0
	for _, s := range p.Sample {
		if len(s.Location) == 3 && s.Location[2].Line[0].Function.Name == "main" {
			stacks++
		}
	}
	if stacks == 0 {
		t.Error("no sample of lex has the stack lex ← parse ← main")
	}
}

func TestOutputSection(t *testing.T) {
	dir := t.TempDir()
	sc := writeScenario(t, dir, "p.lua", profiling)
	files := func(out string) []string {
		ents, _ := os.ReadDir(out)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	hasPB := func(names []string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(n, ".pb.gz") })
	}
	all := filepath.Join(dir, "all")
	if code, _, errOut := runCLI("run", sc, "--out", all); code != ExitOK || !hasPB(files(all)) || !slices.Contains(files(all), "trace.perfetto-trace") {
		t.Fatalf("default outputs: code %d %v %s", code, files(all), errOut)
	}
	none := filepath.Join(dir, "none")
	if code, _, errOut := runCLI("run", sc, "--out", none, "--config-set", "output.pprof=false", "--config-set", "output.trace=false"); code != ExitOK {
		t.Fatalf("code %d %s", code, errOut)
	}
	if hasPB(files(none)) || slices.Contains(files(none), "trace.perfetto-trace") || !slices.Contains(files(none), "buckets.csv") {
		t.Errorf("output.pprof/trace=false wrote %v", files(none))
	}
	cfgDir := filepath.Join(dir, "from-config")
	if code, _, errOut := runCLI("run", sc, "--config-set", "output.dir="+cfgDir); code != ExitOK || !slices.Contains(files(cfgDir), "result.json") {
		t.Errorf("output.dir: code %d, files %v, %s", code, files(cfgDir), errOut)
	}
}

func TestOutFolder(t *testing.T) {
	dir := t.TempDir()
	sc := writeScenario(t, dir, "s.lua", `print("started") require("proflab").record{ n = 1 }`)
	file := writeFile(t, dir, "file", "x")
	code, out, errOut := runCLI("run", sc, "--out", file)
	if code != ExitUsage || strings.Contains(out, "started") || !strings.Contains(errOut, "is a file") {
		t.Errorf("--out FILE: code %d, out %q, stderr %q", code, out, errOut)
	}
	full := filepath.Join(dir, "full")
	writeFile(t, full, "stale.txt", "old")
	code, out, errOut = runCLI("run", sc, "--out", full)
	if code != ExitUsage || strings.Contains(out, "started") || !strings.Contains(errOut, "not empty") || !strings.Contains(errOut, "--force") {
		t.Errorf("--out non-empty: code %d, out %q, stderr %q", code, out, errOut)
	}
	if code, _, errOut = runCLI("run", sc, "--out", full, "--force"); code != ExitOK {
		t.Fatalf("--force: code %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(full, "stale.txt")); err == nil {
		t.Error("--force kept a stale file")
	}
	if _, err := os.Stat(filepath.Join(full, "result.json")); err != nil {
		t.Error(err)
	}
	// no temporary folder is left beside it
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	empty := filepath.Join(dir, "empty")
	_ = os.Mkdir(empty, 0o755)
	if code, _, errOut = runCLI("run", sc, "--out", empty); code != ExitOK {
		t.Errorf("empty folder: code %d %s", code, errOut)
	}
}

func TestFlagsSayWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	sc := writeScenario(t, dir, "s.lua", `print("started")`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", sc, "--set", "interval=1221ms"}, `--set interval=1221ms: "1221ms" is not a TOML value`},
		{[]string{"run", sc, "--set", "b=[1,2"}, `quote it: --set 'b="[1,2"'`},
		{[]string{"run", sc, "--set", "a="}, "--set a=: the value is empty"},
		{[]string{"run", sc, "--seed", "-1"}, `--seed -1: not a seed: give a whole number from 0 to 18446744073709551615`},
		{[]string{"run", sc, sc}, "run takes one scenario, got 2; to run several, use `proflab test"},
	} {
		code, out, errOut := runCLI(tc.args...)
		if code != ExitUsage || strings.Contains(out, "started") || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "strconv") {
			t.Errorf("%v: code %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
	if code, out, _ := runCLI("--version"); code != ExitOK || !strings.HasPrefix(out, "proflab ") {
		t.Errorf("--version: %d %q", code, out)
	}
	_, help, _ := runCLI("run", "-h")
	for _, f := range []string{"result.json", "log.txt", "config.toml", "workload-mM-rN.toml", "buckets.csv", "profile-mM", "samples-mM-SOURCE.pb.gz", "trace.perfetto-trace", "--force"} {
		if !strings.Contains(help, f) {
			t.Errorf("run -h does not mention %s", f)
		}
	}
}

func TestHalListSaysWhoOwnsASource(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "lab.toml", "[machine]\nhal = [\"apic\", \"pebs\", \"pmu\"]\n[hal.spare]\nplugin = \"proflab-hal-apic\"\n")
	code, out, errOut := runCLI("hal", "list", "--config", cfg)
	if code != ExitOK {
		t.Fatalf("code %d %s", code, errOut)
	}
	if strings.Contains(out, "HALs on the default machine") || !strings.Contains(out, "The default machine uses apic, pebs, pmu") {
		t.Errorf("header:\n%s", out)
	}
	line := func(hal, source string) string {
		_, rest, _ := strings.Cut(out, "\n"+hal+" (")
		for _, l := range strings.Split(rest, "\n") {
			if strings.Contains(l, " "+source+" ") {
				return l
			}
		}
		return ""
	}
	if l := line("pmu", "ProfileCacheMisses"); !strings.HasSuffix(l, "pebs owns it") {
		t.Errorf("pmu's ProfileCacheMisses: %q", l)
	}
	if l := line("pebs", "ProfileCacheMisses"); !strings.HasSuffix(l, " owns it") || strings.HasSuffix(l, "pebs owns it") {
		t.Errorf("pebs's ProfileCacheMisses: %q", l)
	}
	if !regexp.MustCompile(`(?m)^spare \(apic [0-9.]+\): 1 sources, .*not used by the default machine$`).MatchString(out) || !strings.HasSuffix(strings.TrimSpace(line("spare", "ProfileTime")), "-") {
		t.Errorf("spare HAL:\n%s", out)
	}
}
