package importer

import (
	"fmt"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/workload"
)

// Load reads a workload file for a machine of architecture arch ("x86"
// or "x64"): a workload TOML, or a profile in a format [Detect] knows,
// imported on the spot as `proflab workload import --arch arch` would.
// The TOML form is tried first; a file that is neither is reported with
// the TOML error (what a hand-written workload's author needs). im is
// the import's provenance, nil for a TOML file.
func Load(path, arch string) (spec *workload.Spec, im *Imported, err error) {
	data, err := input.ReadFile(input.Workload, path)
	if input.Refused(err) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("workload: %w", err)
	}
	return parse(path, data, arch)
}

// parse makes the workload of a file's content: a workload TOML, or a
// profile imported for arch.
func parse(path string, data []byte, arch string) (spec *workload.Spec, im *Imported, err error) {
	if isGzip(data) {
		// never a TOML: a gzipped profile, or what its gzip says
		im, err = Import(path, data, Options{Arch: arch})
		if err != nil {
			return nil, nil, err
		}
		return im.Spec, im, nil
	}
	spec, tomlErr := workload.Parse(path, data)
	if tomlErr == nil {
		return spec, nil, nil
	}
	if _, derr := Detect(data); derr != nil {
		return nil, nil, tomlErr
	}
	im, err = Import(path, data, Options{Arch: arch})
	if err != nil {
		return nil, nil, err
	}
	return im.Spec, im, nil
}
