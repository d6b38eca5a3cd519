// Package scenarios_test runs every scenario in this folder (and the
// newcomer's tour in examples/) through HAL plugin processes, as
// `proflab test` does (the executables in PROFLAB_PLUGIN_PATH, which make
// test points at ./bin; else this test executable serving the same HALs),
// and compares the logs of those whose output is the
// point with golden files in testdata/. Refresh them with
//
//	go test ./scenarios -update
package scenarios_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/scenario"
	"github.com/proflab/proflab/halplugins/halrpc/halrpctest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden are the scenarios whose log is the point: their output is
// compared byte for byte.
var golden = map[string]bool{
	"create_validation.lua":     true,
	"inclusive_end.lua":         true,
	"buckets_and_lists.lua":     true,
	"callback_events.lua":       true,
	"intervals.lua":             true,
	"trace_information.lua":     true,
	"processor_performance.lua": true,
	"timer_vs_counter.lua":      true,
	"skid_vs_pebs.lua":          true,
	"sampling_error.lua":        true,
	"interval_clamping.lua":     true,
	"timer_aliasing.lua":        true,
	"etw_profiling.lua":         true,
	"source_listing.lua":        true,
	"hal_versions.lua":          true,
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
	files, err := scenario.Discover([]string{".", "../examples/first-scenario.lua", "../examples/workload-file.lua"})
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
	runs := make([]scenario.Options, len(files))
	for i, f := range files {
		runs[i] = scenario.Options{File: f, Seed: 1, Setup: setup}
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
			if !golden[filepath.Base(name)] || filepath.Dir(name) != "." {
				return
			}
			path := filepath.Join("testdata", strings.TrimSuffix(filepath.Base(name), ".lua")+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(r.Log), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run `go test ./scenarios -update` to create it)", err)
			}
			if d := lineDiff(string(want), r.Log, 3); d != "" {
				t.Errorf("%s: the log differs from %s (run with -update if the change is intended); - golden, + got:\n%s", name, path, d)
			}
		})
	}
}
