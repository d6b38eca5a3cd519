package halrpc

import (
	"os/exec"
	"syscall"
)

// setProcessAttrs starts the plugin in a process group of its own, so that
// killing the group also ends whatever the plugin started (a shell script's
// children keep its stdout open, and go-plugin waits for stdout to close),
// and makes the kernel kill the plugin when the host process dies. Go does
// not end OS threads that started children unless they were locked, so the
// parent-death signal follows the process. A group of its own also keeps
// the terminal's Ctrl-C from reaching the plugin: the host decides when it
// stops.
func setProcessAttrs(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// killGroup sends SIGKILL to the plugin's process group (the plugin and
// everything it started). A SIGSTOPped process dies of SIGKILL too.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
