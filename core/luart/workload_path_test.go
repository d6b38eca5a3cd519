package luart

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/runerr"
)

// workloadTree is a scenario's folder beside a data folder and a secret:
//
//	root/scen/w.toml, sub/x.toml, in.toml → sub/x.toml, out.toml →
//	  ../secret.toml, data → ../data (a folder link out)
//	root/data/y.toml
//	root/secret.toml
func workloadTree(t *testing.T) (root string) {
	t.Helper()
	root = t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	fn := "[[image]]\nname = \"a.exe\"\nbase = 0x400000\n[[image.function]]\nname = \"f\"\noffset = 0x1000\nsize = 0x100\nweight = 1\n[[process]]\nname = \"app\"\n[[process.thread]]\n"
	write("scen/w.toml", fn)
	write("scen/sub/x.toml", fn)
	write("data/y.toml", fn)
	write("secret.toml", "hunter2 7\nroot:x:0:0 1\n")
	link("sub/x.toml", "scen/in.toml")
	link("../secret.toml", "scen/out.toml")
	link("../data", "scen/data")
	link("/", "scen/root")
	link("../gone", "scen/gone") // a link out to nothing
	return root
}

// Issue 29 case 10: workload paths resolve inside the scenario's folder
// and the folders allowed (WorkloadDirs), like require; anything else —
// an absolute path, ../, /proc, a symlink out — is outside, said without
// reading it.
func TestWorkloadPaths(t *testing.T) {
	root := workloadTree(t)
	scen, data := filepath.Join(root, "scen"), filepath.Join(root, "data")
	for _, tc := range []struct {
		name    string
		allowed []string
		path    string // the file read, relative to root ("": an error)
		err     string
	}{
		{"w.toml", nil, "scen/w.toml", ""},
		{"sub/x.toml", nil, "scen/sub/x.toml", ""},
		{"./sub/../w.toml", nil, "scen/w.toml", ""},
		{filepath.Join(scen, "w.toml"), nil, "scen/w.toml", ""},
		{"in.toml", nil, "scen/sub/x.toml", ""},
		{"../secret.toml", nil, "", "outside the folders a scenario may read workloads from"},
		{filepath.Join(root, "secret.toml"), nil, "", "outside"},
		{"/proc/self/status", nil, "", "outside"},
		{"/etc/passwd", nil, "", "outside"},
		{"out.toml", nil, "", "outside"},
		{"data/y.toml", nil, "", "outside"},
		{"../secret-missing.toml", nil, "", "outside"},
		// issue 36 item 5: a link out says outside whether or not what
		// it leads to exists
		{"root/etc/passwd", nil, "", "outside"},
		{"root/etc/nonexistent", nil, "", "outside"},
		{"root/nonexistent/x.toml", nil, "", "outside"},
		{"gone", nil, "", "outside"},
		{"gone/x.toml", nil, "", "outside"},
		{"missing.toml", nil, "", `workload "missing.toml": file does not exist (looked for ` + filepath.Join(scen, "missing.toml") + ")"},
		{"", nil, "", "an empty path"},
		// allowed folders: looked in after the scenario's, absolute
		// paths and symlinks into them, ../ into them
		{"y.toml", []string{data}, "data/y.toml", ""},
		{"w.toml", []string{data}, "scen/w.toml", ""},
		{filepath.Join(data, "y.toml"), []string{data}, "data/y.toml", ""},
		{"data/y.toml", []string{data}, "data/y.toml", ""},
		{"../data/y.toml", []string{data}, "data/y.toml", ""},
		{"../secret.toml", []string{data}, "", "outside"},
		{"nope.toml", []string{data}, "", "looked for " + filepath.Join(scen, "nope.toml") + " and " + filepath.Join(data, "nope.toml")},
	} {
		rt, _ := newTestRuntime(t, Config{Dir: scen, WorkloadDirs: tc.allowed})
		_, real, err := rt.workloadPath(tc.name)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s (allowed %v): %v", tc.name, tc.allowed, err)
		case tc.err == "" && real != filepath.Join(root, tc.path):
			t.Errorf("%s (allowed %v): reads %s, want %s", tc.name, tc.allowed, real, tc.path)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s (allowed %v): error %v, want one containing %q", tc.name, tc.allowed, err, tc.err)
		}
		if tc.err == "outside" && !errors.Is(err, errOutside) {
			t.Errorf("%s: %v is not errOutside", tc.name, err)
		}
		if err != nil && strings.Contains(err.Error(), "hunter") {
			t.Errorf("%s: the error shows the file's content: %v", tc.name, err)
		}
	}
}

// m:run and m:images refuse a path outside without reading it, and a
// file that is missing or outside fails the run as bad input (exit 2),
// even under pcall; a file that reads but is not a workload stays the
// scenario's error.
func TestWorkloadFilesOutsideAndMissing(t *testing.T) {
	root := workloadTree(t)
	scen := filepath.Join(root, "scen")
	for _, tc := range []struct {
		src, want string
		input     bool
	}{
		{`m:run{ duration_us = 1000, workload = "../secret.toml" }`, `field "workload": workload "../secret.toml": outside the folders`, true},
		{`m:images{ workload = "` + filepath.Join(root, "secret.toml") + `" }`, "outside the folders", true},
		{`pcall(m.run, m, { duration_us = 1000, workload = "/proc/self/status" }) error("caught")`, "caught", true},
		{`m:run{ duration_us = 1000, workload = "missing.toml" }`, `workload "missing.toml": file does not exist`, true},
		{`m:run{ duration_us = 1000, workload = "sub" }`, "it is a folder", true},
		{`m:run{ duration_us = 1000, workload = "w.toml" }`, "", false},
	} {
		rt, _ := newTestRuntime(t, Config{Dir: scen, Seed: 1})
		err := rt.Exec("s.lua", []byte("local lab = require 'proflab'\nlocal m = lab.machine{ hal = {} }\nm:process{ name = 'app' }\n"+tc.src))
		msg := ""
		if err != nil {
			msg = err.Message
		}
		if tc.want == "" && err != nil || tc.want != "" && !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want %q", tc.src, msg, tc.want)
		}
		if strings.Contains(msg, "hunter") || strings.Contains(msg, "root:x") {
			t.Errorf("%s: the error shows the secret: %s", tc.src, msg)
		}
		in := rt.InputFailure()
		if (in != nil) != tc.input || in != nil && (in.Kind != runerr.KindInput || !strings.HasPrefix(in.Message, "s.lua:4: ")) {
			t.Errorf("%s: input failure %+v, want one: %v", tc.src, in, tc.input)
		}
	}
}
