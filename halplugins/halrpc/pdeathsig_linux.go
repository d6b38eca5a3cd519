package halrpc

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill the plugin when the host
// process dies (Linux only). Go does not end OS threads that started
// children unless they were locked, so the signal follows the process.
func setParentDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
