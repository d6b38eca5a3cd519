package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/scenario"
)

// A tool's own outcome decides its run folder: one that failed on the
// machine (status 1) writes it with result.json's status "failed"; one
// that refused its options (status 2) stopped before running anything and
// writes nothing, so that the corrected command can use the same --out.
func TestToolStatusInTheRunFolder(t *testing.T) {
	for _, tt := range []struct {
		name, driver string
		code         int
		status       string // result.json's; "" for no folder
	}{
		{"done", `lab.log("fine")`, ExitOK, "passed"},
		{"failed", `lab.record{ tool_status = 1, tool_error = "tool: NtStartProfile failed" }`, ExitFailed, "failed"},
		{"refused", `lab.record{ tool_status = 2, tool_error = "tool: -z x: no such module" }`, ExitUsage, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			var out, errOut bytes.Buffer
			cmd := &cobra.Command{}
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			opt := scenario.Options{File: filepath.Join("<proflab>", "tool"), Source: []byte("local lab = require 'proflab'\n" + tt.driver), Seed: 1}
			err := runDriver(context.Background(), cmd, "tool", opt, dir, false, nil)
			code := ExitOK
			if err != nil {
				code = exitCodeOf(err)
			}
			if code != tt.code {
				t.Errorf("exit %d (%v), want %d", code, err, tt.code)
			}
			b, rerr := os.ReadFile(filepath.Join(dir, "result.json"))
			if tt.status == "" {
				if ents, _ := os.ReadDir(dir); len(ents) > 0 {
					t.Errorf("a refused tool wrote %d files", len(ents))
				}
				return
			}
			var res struct{ Status string }
			if rerr == nil {
				rerr = json.Unmarshal(b, &res)
			}
			if rerr != nil || res.Status != tt.status {
				t.Errorf("result.json: status %q (%v), want %q", res.Status, rerr, tt.status)
			}
		})
	}
}

// kernrate refused (-z of a user-mode module without -a) leaves --out
// empty, and the corrected command then writes it.
func TestKernrateRefusedThenRerun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	wl := "../../examples/workloads/server.toml"
	code, _, errOut := runCLI("kernrate", "--workload", wl, "--out", dir, "-s", "1", "-z", "server.exe")
	if code != ExitUsage || !strings.Contains(errOut, "add -a") {
		t.Fatalf("refused: exit %d, %s", code, errOut)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Fatalf("the refused run wrote %d files into --out", len(ents))
	}
	code, _, errOut = runCLI("kernrate", "--workload", wl, "--out", dir, "-s", "1", "-a", "-z", "server.exe")
	if code != ExitOK {
		t.Fatalf("the corrected rerun: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "result.json")); err != nil {
		t.Error(err)
	}
}
