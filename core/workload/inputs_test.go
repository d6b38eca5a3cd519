package workload_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/core/workload"
)

// A workload path that is a device or a FIFO is refused at once, naming
// the file and what it is (issue 20, item 11).
func TestLoadRefusesDevicesAndFIFOs(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "w.toml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	for path, want := range map[string]string{"/dev/zero": "it is a character device", fifo: "it is a FIFO"} {
		done := make(chan error, 1)
		go func() { _, err := workload.Load(path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "workload file "+path) || !strings.Contains(err.Error(), want) {
				t.Errorf("Load(%s) = %v; want an error naming the file and saying %q", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Load(%s) still reading after 10 s", path)
		}
	}
}
