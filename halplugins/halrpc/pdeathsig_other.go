//go:build !linux

package halrpc

import "os/exec"

// setParentDeathSignal does nothing here: the plugin's own parent watch
// (Serve) ends it when the host dies.
func setParentDeathSignal(*exec.Cmd) {}
