package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/etl"
)

// wpr -start CPU -stop FILE.etl and tracelog -start -f FILE.etl write
// the recording as an .etl (with stacks where asked) and its symbol
// listing beside it, as Windows' tools write their traces.
func TestToolsRecordETL(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		stacks bool
	}{
		{"wpr", []string{"wpr", server, "-start", "CPU", "-stop", filepath.Join(dir, "cpu.etl"), "-duration", "1"}, true},
		{"tracelog", []string{"tracelog", server, "-start", "NT Kernel Logger", "-f", filepath.Join(dir, "k.etl"),
			"-eflag", "PROC_THREAD+LOADER+PROFILE", "-duration", "1"}, false},
	} {
		args := append(strings.Fields(tc.args[0]+" "+tc.args[1]), tc.args[2:]...)
		code, out, errOut := runCLI(args...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d, out %q, stderr %q", tc.name, code, out, errOut)
		}
		file := tc.args[len(tc.args)-5]
		if tc.name == "wpr" {
			file = tc.args[len(tc.args)-3]
		}
		if !strings.Contains(out, "Writing "+file) {
			t.Errorf("%s: log %q", tc.name, out)
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		r := etl.NewReader(f)
		h, _, err := r.ReadHeader()
		if err != nil || h.LoggerName != "NT Kernel Logger" || h.PointerSize != 8 {
			t.Fatalf("%s: header %+v, %v", tc.name, h, err)
		}
		samples, stacks := 0, 0
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			switch rec.Hook {
			case etl.HookSampledProfile:
				samples++
			case etl.HookStackWalk:
				stacks++
			}
		}
		f.Close()
		if samples == 0 || (stacks > 0) != tc.stacks {
			t.Errorf("%s: %d samples, %d stacks", tc.name, samples, stacks)
		}
		if _, err := os.Stat(strings.TrimSuffix(file, ".etl") + ".symbols"); err != nil {
			t.Errorf("%s: no symbol listing beside the trace: %v", tc.name, err)
		}
	}
}
