package luavm

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A module in the scenario's folder that is a FIFO is refused at once,
// not waited on (issue 20, item 11).
func TestRequireRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.lua"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	vm, _ := newTestState(t, Config{Dir: dir})
	done := make(chan string, 1)
	go func() {
		if err := vm.Exec("t.lua", []byte(`require "pipe"`)); err != nil {
			done <- err.Message
			return
		}
		done <- ""
	}()
	select {
	case msg := <-done:
		for _, want := range []string{`require "pipe"`, filepath.Join(dir, "pipe.lua"), "it is a FIFO"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not say %q", msg, want)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal(`require "pipe" still waits on the FIFO after 10 s`)
	}
}
