package luart

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"

	"github.com/proflab/proflab/core/workload/importer"
)

// noteInput records that the run read the file at path with content src:
// the modules required from the scenario's folder and the workload files
// are what a run depends on besides its scenario and configuration, so a
// sweep compares them across its parts (Inputs).
func (rt *Runtime) noteInput(path string, src []byte) {
	sum := sha256.Sum256(src)
	rt.noteInputSum(path, hex.EncodeToString(sum[:]))
}

// noteInputSum is noteInput for a file read by another package, which
// hashed what it read (hex sha256).
func (rt *Runtime) noteInputSum(path, sum string) {
	if rt.inputs == nil {
		rt.inputs = map[string]string{}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if old, ok := rt.inputs[path]; ok && old != sum {
		// read in another version before: the run depends on each
		if rt.inputVersions == nil {
			rt.inputVersions = map[string][]string{}
		}
		if rt.inputVersions[path] == nil {
			rt.inputVersions[path] = []string{old}
		}
		if !slices.Contains(rt.inputVersions[path], sum) {
			rt.inputVersions[path] = append(rt.inputVersions[path], sum)
		}
	}
	rt.inputs[path] = sum
}

// Inputs are the files the run read besides its scenario and its
// configuration (modules required from the scenario's folder, workload
// files), by absolute path, with the sha256 of what was read (of the last
// reading), in hex.
func (rt *Runtime) Inputs() map[string]string { return rt.inputs }

// InputVersions are the files of Inputs that the run read in more than
// one version (a workload file replaced between an m:images and an
// m:run), by absolute path, with the sha256 of each version it read, in
// the order first read; nil when it read every file in one version.
func (rt *Runtime) InputVersions() map[string][]string { return rt.inputVersions }

// noteImport records a profile the run imported as a workload (once per
// content), for the run folder's comparison with the source.
func (rt *Runtime) noteImport(im *importer.Imported) {
	if im == nil {
		return
	}
	for _, seen := range rt.imports {
		if seen.SHA256 == im.SHA256 {
			return
		}
	}
	rt.imports = append(rt.imports, im)
}

// Imports are the profiles the run imported as workloads (m:run{
// workload = "cpu.pb.gz" }), in the order first used, one per content.
func (rt *Runtime) Imports() []*importer.Imported { return rt.imports }
