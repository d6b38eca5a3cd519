package luart

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// noteInput records that the run read the file at path with content src:
// the modules required from the scenario's folder and the workload files
// are what a run depends on besides its scenario and configuration, so a
// sweep compares them across its parts (Inputs).
func (rt *Runtime) noteInput(path string, src []byte) {
	if rt.inputs == nil {
		rt.inputs = map[string]string{}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	sum := sha256.Sum256(src)
	rt.inputs[path] = hex.EncodeToString(sum[:])
}

// noteInputFile is noteInput for a file read by another package: it
// reads the file again to hash it (a file that cannot be read again is
// recorded with an empty hash).
func (rt *Runtime) noteInputFile(path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		src = nil
	}
	rt.noteInput(path, src)
}

// Inputs are the files the run read besides its scenario and its
// configuration (modules required from the scenario's folder, workload
// files), by absolute path, with the sha256 of what was read, in hex.
func (rt *Runtime) Inputs() map[string]string { return rt.inputs }
