// Package scenarios_test runs every scenario in this folder (and the
// newcomer's tour in examples/) through HAL plugin processes, as
// `proflab test` does (the executables in PROFLAB_PLUGIN_PATH, which make
// test points at ./bin; else this test executable serving the same HALs),
// and compares each one's log with its golden file in testdata/ (a
// scenario opts out with a line saying why, optOut). Refresh them with
//
//	go test ./scenarios -update
package scenarios_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/scenario"
	"github.com/proflab/proflab/halplugins/halrpc/halrpctest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// optOut is how a scenario says its log has no golden file: a line
// "-- golden: none, because <reason>" (say why: a log that depends on
// nothing the scenario controls, say). Every other scenario's log is
// compared byte for byte with testdata/NAME.golden.
const optOut = "-- golden: none, because "

// goldenReason returns whether the scenario's log has a golden file, and
// an error for an opt-out that gives no reason.
func goldenReason(src string) (bool, error) {
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "-- golden:") {
			if !strings.HasPrefix(line, optOut) || strings.TrimSpace(strings.TrimPrefix(line, optOut)) == "" {
				return false, fmt.Errorf("%q: a scenario without a golden file says why: %q", line, optOut+"…")
			}
			return false, nil
		}
	}
	return true, nil
}

func TestMain(m *testing.M) {
	halrpctest.ServeIfPlugin()
	flag.Parse()
	cleanup := ensurePlugins()
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// ensurePlugins uses the shipped HAL plugins in PROFLAB_PLUGIN_PATH (make
// test sets it to ./bin, where make build put them); without them, it
// links the test executable under their names into a temporary folder
// (halrpctest), so that nothing is built.
func ensurePlugins() func() {
	if dir := os.Getenv(halhost.EnvPluginPath); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "proflab-hal-apic")); err == nil {
			return func() {}
		}
	}
	dir, err := os.MkdirTemp("", "proflab-scenario-plugins")
	if err != nil {
		panic(err)
	}
	if _, err := halrpctest.Install(dir, "proflab-hal-apic", "proflab-hal-pmu", "proflab-hal-pebs"); err != nil {
		panic(err)
	}
	os.Setenv(halhost.EnvPluginPath, dir)
	return func() { os.RemoveAll(dir) }
}

func TestScenarios(t *testing.T) {
	files, err := scenario.Discover([]string{".", "../examples/first-scenario.lua", "../examples/workload-file.lua", "../examples/readme.lua"})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 12 {
		t.Fatalf("found only %d scenarios: %v", len(files), files)
	}
	setup, err := scenario.LoadSetup("", halhost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// windows_kernrate.lua profiles examples/workloads/desktop-x86.toml,
	// as `make test` runs it: proflab test --workload-dir examples/workloads
	workloads, err := filepath.Abs(filepath.Join("..", "examples", "workloads"))
	if err != nil {
		t.Fatal(err)
	}
	runs := make([]scenario.Options, len(files))
	for i, f := range files {
		runs[i] = scenario.Options{File: f, Seed: 1, Setup: setup, WorkloadDirs: []string{workloads}}
	}
	results := make([]scenario.Result, len(files))
	scenario.RunAll(context.Background(), runs, 2, func(i int, r scenario.Result) { results[i] = r })
	for i, r := range results {
		name := files[i]
		t.Run(strings.TrimSuffix(filepath.Base(name), ".lua"), func(t *testing.T) {
			if !r.Passed() {
				var b strings.Builder
				scenario.WriteDetails(&b, r, "  ")
				t.Fatalf("%s failed:\n%s", name, b.String())
			}
			if filepath.Base(name) == "readme.lua" && r.Log != "IRQL_NOT_LESS_OR_EQUAL\n" {
				t.Errorf("the README's first example prints %q, the README says IRQL_NOT_LESS_OR_EQUAL", r.Log)
			}
			if filepath.Dir(name) != "." {
				return // the examples' tour: their own folder's tests
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if has, err := goldenReason(string(src)); err != nil {
				t.Fatal(err)
			} else if !has {
				return
			}
			path := filepath.Join("testdata", strings.TrimSuffix(filepath.Base(name), ".lua")+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(goldenText(r)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run `go test ./scenarios -update` to create it)", err)
			}
			if d := lineDiff(string(want), goldenText(r), 3); d != "" {
				t.Errorf("%s: the log differs from %s (run with -update if the change is intended); - golden, + got:\n%s", name, path, d)
			}
		})
	}
}

// goldenText is what a golden file holds: the run's log, then its checks
// (where, and the message), so that a scenario that prints nothing is
// held to its checks' lines and messages.
func goldenText(r scenario.Result) string {
	var b strings.Builder
	b.WriteString(r.Log)
	b.WriteString("-- checks\n")
	for _, c := range r.Checks {
		status := "PASS"
		if !c.Passed {
			status = "FAIL"
		}
		fmt.Fprintf(&b, "%s %s: %s\n", status, c.Where, c.Message)
	}
	return b.String()
}

// An opt-out names its reason; a scenario's log has a golden file unless
// it opts out.
func TestGoldenOptOut(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want bool
		err  bool
	}{
		{"local lab = require \"proflab\"\n", true, false},
		{"-- golden: none, because the log prints the host's time\n", false, false},
		{"-- golden: none\n", false, true},
		{"-- golden: none, because \n", false, true},
	} {
		has, err := goldenReason(tt.src)
		if has != tt.want || (err != nil) != tt.err {
			t.Errorf("%q: golden %v, error %v", tt.src, has, err)
		}
	}
}
