package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/tools")

// toolRun is one command line of a golden file.
type toolRun []string

func (r toolRun) transcript() string {
	code, out, errOut := runCLI(r...)
	var b strings.Builder
	fmt.Fprintf(&b, "$ proflab %s\n%s", strings.Join(r, " "), out)
	if errOut != "" {
		fmt.Fprintf(&b, "[stderr]\n%s", errOut)
	}
	fmt.Fprintf(&b, "[exit %d]\n", code)
	return b.String()
}

const (
	win7x86 = "--config-set machine.version=6.1 --config-set machine.arch=x86"
	win81   = "--config-set machine.version=6.3"
	desktop = "--workload ../../examples/workloads/desktop-x86.toml"
	server  = "--workload ../../examples/workloads/server.toml"
)

func cl(s string) toolRun { return toolRun(strings.Fields(s)) }

// The tools' logs per tool and Windows version (6.1 x86, 6.3 x64,
// 10.0.19041 x64, the default machine), byte for byte. Refresh them with
// go test ./cmd/proflab -run TestToolGoldens -update.
func TestToolGoldens(t *testing.T) {
	goldens := map[string][]toolRun{
		"kernrate-6.1-x86": {
			cl("kernrate " + win7x86 + " " + desktop + " -s 5 -z editor.exe -z dispdrv.sys -a"),
		},
		"kernrate-6.3-x64": {
			cl("kernrate " + win81 + " " + server + " -s 5 -i TotalIssues 65536 -n server -z server.exe"),
			cl("kernrate " + win81 + " " + server + " -s 1 -i BranchMispredictions 4096 -i Time 0 -v -j srv*c:\\symbols"),
		},
		"kernrate-10.0.19041-x64": {
			cl("kernrate " + server + " -s 5 -z ntoskrnl -z netdrv.sys -p 12 -b 64"),
			cl("kernrate " + server + " -s 5 -i TotalIssues 65536"),
		},
		"wpr-6.1-x86":        {cl("wpr " + win7x86 + " -profint")},
		"wpr-6.3-x64":        {cl("wpr " + win81 + " -profint"), cl("wpr " + win81 + " -setprofint 100000"), cl("wpr " + win81 + " -pmcsources")},
		"wpr-10.0.19041-x64": {cl("wpr -profint"), cl("wpr -setprofint 100000"), cl("wpr -resetprofint TotalIssues"), cl("wpr -pmcsources")},
		"tracelog-6.1-x86":   {cl("tracelog " + win7x86 + " -profilesources Help")},
		"tracelog-6.3-x64":   {cl("tracelog " + win81 + " -profilesources Help")},
		"tracelog-10.0.19041-x64": {
			cl("tracelog -profilesources Help"),
			cl("tracelog --config-set machine.cpu_vendor=AuthenticAMD -profilesources Help"),
		},
	}
	for name, runs := range goldens {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			for i, r := range runs {
				if i > 0 {
					b.WriteString("\n")
				}
				b.WriteString(r.transcript())
			}
			path := filepath.Join("testdata", "tools", name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(want) != b.String() {
				t.Errorf("%s differs (run with -update if the change is intended):\n%s", path, b.String())
			}
		})
	}
}

// What the issue asks of the commands, line by line and exit code by
// exit code.
func TestToolCommands(t *testing.T) {
	code, out, errOut := runCLI("wpr", "-profint")
	if code != ExitOK || out != "Current Profile Interval = 10000 [1.0000ms]\n" || errOut != "" {
		t.Errorf("wpr -profint on the default machine: code %d, out %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runCLI("wpr", "--config-set", "machine.version=6.1", "-profint")
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "wpr runs on Windows 8.1 (6.3) and later; this machine runs 6.1") {
		t.Errorf("wpr on 6.1: code %d, out %q, stderr %q", code, out, errOut)
	}
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"kernrate", "-s", "5"}, ExitUsage, "give a workload"},
		{[]string{"kernrate", "--workload", "../../examples/workloads/server.toml", "-s", "x"}, ExitUsage, `-s needs the seconds to collect, got "x"`},
		{[]string{"kernrate", "--workload", "../../examples/workloads/server.toml"}, ExitUsage, "give -s N"},
		{[]string{"kernrate", "--workload", "../../examples/workloads/server.toml", "-s", "1", "-b", "24"}, ExitUsage, "-b 24: the bucket size must be a power of 2"},
		{[]string{"kernrate", "--workload", "../../examples/workloads/server.toml", "-s", "1", "-z", "nothere"}, ExitUsage, "-z nothere: no profiled module"},
		{[]string{"kernrate", "--workload", "../../examples/workloads/server.toml", "-s", "1", "-z", "server.exe"}, ExitUsage, "-z server.exe: a user-mode module, not profiled: add -a"},
		{[]string{"kernrate", "--workload", "../../examples/workloads/server.toml", "-s", "1", "-q"}, ExitUsage, "-q is not a kernrate option"},
		{[]string{"kernrate", "--workload", "nothere.toml", "-s", "1"}, ExitUsage, "--workload nothere.toml"},
		{[]string{"kernrate", "--workload", "../../examples/workloads/server.toml", "--config-set", "machine.version=6.1", "--config-set", "machine.arch=x86", "-s", "1"}, ExitUsage, "workload: image[1].function[1].offset"},
		{[]string{"kernrate", "--workload", "../../examples/workloads/desktop-x86.toml", "--config-set", "machine.version=6.1", "--config-set", "machine.arch=x86", "-s", "1", "-i", "TotalIssues", "65536"}, ExitUsage, "this machine's HALs do not have that source"},
		{[]string{"wpr", "--verbose", "-profint"}, ExitUsage, "unknown flag: --verbose"},
		{[]string{"wpr", "-setprofint", "99"}, ExitUsage, "-setprofint 99: the interval must be 1221…10000000"},
		{[]string{"tracelog", "-stop", "x"}, ExitUsage, "-stop is out of the model's reach"},
		{[]string{"tracelog", "-start", "-f", "k.etl", "-eflag", "PROC_THREAD+LOADER"}, ExitUsage, "the model records profile sessions: give -eflag with PROFILE"},
		{[]string{"wpr", "-start", "CPU"}, ExitUsage, "-start CPU needs -stop FILE.etl"},
		{[]string{"wpr", "-start", "CPU", "-stop", "x.etl"}, ExitUsage, "give a workload to record (proflab wpr --workload FILE)"},
	}
	for _, c := range cases {
		code, _, errOut := runCLI(c.args...)
		if code != c.code || !strings.Contains(errOut, c.err) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.err)
		}
	}
	// after --, a long option is the tool's
	if code, _, errOut := runCLI("wpr", "--", "--profint"); code != ExitUsage || !strings.Contains(errOut, "--profint is not a wpr command") {
		t.Errorf("wpr -- --profint: code %d, stderr %q", code, errOut)
	}
	if code, out, _ := runCLI("kernrate", "--help"); code != ExitOK || !strings.Contains(out, "-z MODULE") || !strings.Contains(out, "--workload") {
		t.Errorf("kernrate --help: code %d, out:\n%s", code, out)
	}
}

// --out keeps the run folder, whose log.txt is the tool's log.
func TestToolOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errOut := runCLI("kernrate", "--workload", "../../examples/workloads/server.toml", "--out", dir, "-s", "1", "--seed", "3")
	if code != ExitOK {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	log, err := os.ReadFile(filepath.Join(dir, "log.txt"))
	if err != nil || string(log) != out {
		t.Errorf("log.txt is not what kernrate printed (%v)", err)
	}
	res, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil || !strings.Contains(string(res), `"seed": 3`) || !strings.Contains(string(res), `"tool": "kernrate"`) {
		t.Errorf("result.json: %v\n%s", err, res)
	}
	if _, err := os.Stat(filepath.Join(dir, "config.toml")); err != nil {
		t.Error(err)
	}
}

// proflab's long flags are taken anywhere before --, with their values;
// everything else, and everything after --, is the tool's.
func TestSplitToolArgs(t *testing.T) {
	cmd := newToolCmd("kernrate", "", "", true)
	cases := []struct {
		in         string
		ours, tool string
		help       bool
		err        string
	}{
		{"-s 5 --workload w.toml -z app.exe", "--workload w.toml", "-s 5 -z app.exe", false, ""},
		{"--config-set=machine.cpus=2 -a --seed 3", "--config-set=machine.cpus=2 --seed 3", "-a", false, ""},
		{"--out o -- --seed 3 -c", "--out o", "--seed 3 -c", false, ""},
		{"-c 5 --force", "--force", "-c 5", false, ""},
		{"-s 5 --help", "", "-s 5", true, ""},
		{"--nope -s 5", "", "", false, "unknown flag: --nope"},
		{"-s 5 --seed", "", "", false, "flag --seed needs a value"},
	}
	for _, c := range cases {
		ours, tool, help, err := splitToolArgs(cmd.Flags(), strings.Fields(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(ours, " ") != c.ours || strings.Join(tool, " ") != c.tool || help != c.help {
			t.Errorf("%q: ours %q, tool %q, help %v, err %v", c.in, ours, tool, help, err)
		}
	}
}

// The tools take the run's budget flags and keep them, and a budget error
// is one line `proflab: TOOL: …`, as their own errors are, not the Lua
// traceback of a program the user never saw (issue 29 case 20).
func TestToolsTakeTheBudgets(t *testing.T) {
	oneLine := func(args []string, code int, prefix, want string) {
		t.Helper()
		got, _, errOut := runCLI(args...)
		if got != code || !strings.HasPrefix(errOut, prefix) || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 || strings.Contains(errOut, "traceback") {
			t.Errorf("%v: code %d, stderr %q; want %d and one line %q…%q", args, got, errOut, code, prefix, want)
		}
	}
	tools := map[string][]string{
		"kernrate": strings.Fields(server + " -s 1"),
		"wpr":      {"-pmcsources"},
		"tracelog": {"-profilesources", "Help"},
	}
	for name, args := range tools {
		// 16 bytes: the first string the tool builds is over it
		oneLine(append([]string{name, "--memory", "16"}, args...), ExitFailed,
			"proflab: "+name+": ", "over the scenario's memory budget of 16 bytes (--memory)\n")
		// the flag wins over the configuration, and 0 means none
		ok := append([]string{name, "--config-set", "run.memory=16", "--memory", "0", "--config-set", "run.timeout=1ns", "--timeout", "0"}, args...)
		if code, out, errOut := runCLI(ok...); code != ExitOK || out == "" {
			t.Errorf("%v: code %d, stderr %q; want 0", ok, code, errOut)
		}
	}
	// an hour of simulated time is far longer than 50 ms of wall time
	oneLine([]string{"kernrate", "--timeout", "50ms", "--workload", "../../examples/workloads/server.toml", "-s", "3600"}, ExitFailed,
		"proflab: kernrate: scenario exceeded its time budget of 50ms (--timeout)", "")
	// the configuration's budget without a flag
	oneLine(append([]string{"wpr", "--config-set", "run.memory=16"}, tools["wpr"]...), ExitFailed,
		"proflab: wpr: ", "over the scenario's memory budget of 16 bytes (--memory)\n")
}

// With --out, a budget error's traceback is kept in result.json: the
// terminal gets one line, the record everything.
func TestToolBudgetErrorKeepsItsTraceback(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errOut := runCLI("wpr", "--memory", "16", "--out", dir, "-pmcsources")
	if code != ExitFailed || strings.Contains(errOut, "traceback") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	res, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil || !strings.Contains(string(res), `"kind": "memory"`) || !strings.Contains(string(res), `"traceback": "stack traceback:`) {
		t.Errorf("result.json: %v\n%s", err, res)
	}
}
