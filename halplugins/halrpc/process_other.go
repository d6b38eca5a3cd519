//go:build !linux

package halrpc

import (
	"io/fs"
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

// processTree is empty here: without /proc, a plugin's descendants are
// not listed.
type processTree []struct{}

func treeOf(int) processTree { return nil }

func (processTree) kill() {}

// killAll is killGroup here: the plugin's descendants are not listed.
func killAll(pid int) { killGroup(pid) }

// fdExec is false here: the child executes a private copy of the file.
func fdExec() bool { return false }

// statKey has no identity to give here: no hash is reused.
func statKey(fs.FileInfo) (struct{}, bool) { return struct{}{}, false }

// sameStat compares what the portable stat has.
func sameStat(a, b fs.FileInfo) bool { return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) }
