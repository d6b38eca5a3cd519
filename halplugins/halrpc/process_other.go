//go:build !linux

package halrpc

import (
	"os"
	"os/exec"
)

// setProcessAttrs does nothing here: the plugin's own parent watch (Serve)
// ends it when the host dies.
func setProcessAttrs(*exec.Cmd) {}

// killGroup kills the plugin process only: without process groups its
// children may outlive it.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil && pid > 0 {
		_ = p.Kill()
	}
}
