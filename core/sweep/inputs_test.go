package sweep_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/core/sweep"
)

// A sweep file, a scenario or a config_file that is a device, a FIFO or
// too large is refused at once by ReadFile or Expand (what --dry-run
// does), naming the file (issue 20, item 11).
func TestSweepInputsAreBoundedRegularFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.lua"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	write("ok.lua", "print(1)\n")
	big := write("big.lua", "")
	if err := os.Truncate(big, 16<<20+1); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		want []string
	}{
		{"/dev/zero", []string{"sweep file /dev/zero", "character device"}},
		{filepath.Join(dir, "fifo.lua"), []string{"sweep file", "fifo.lua", "FIFO"}},
		{write("zero.toml", "scenario = \"/dev/zero\"\n"), []string{"zero.toml", "scenario /dev/zero", "character device"}},
		{write("fifo.toml", "scenario = \"fifo.lua\"\n"), []string{"fifo.toml", "fifo.lua", "FIFO"}},
		{write("big.toml", "scenario = \"big.lua\"\n"), []string{"big.toml", "big.lua", "16 MiB"}},
		{write("zero-config.toml", "scenario = \"ok.lua\"\nconfig_file = \"/dev/zero\"\n"), []string{"zero-config.toml", "configuration file /dev/zero", "character device"}},
	} {
		done := make(chan error, 1)
		go func() {
			f, err := sweep.ReadFile(tt.path)
			if err == nil {
				_, err = sweep.Expand(f, nil)
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: no error", tt.path)
				continue
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q does not say %q", tt.path, err, w)
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still reading after 10 s", tt.path)
		}
	}
}
