package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/scenario"
	"github.com/proflab/proflab/core/version"
)

// ProflabInput is the key of Manifest.Inputs that holds the proflab
// version the runs ran on; PluginInput prefixes a HAL plugin
// executable's path.
const (
	ProflabInput = "proflab"
	PluginInput  = "plugin "
)

// dependencies gathers what a sweep's runs depended on beyond the plan's
// hash (Manifest.Inputs), and the inputs seen in two versions.
type dependencies struct {
	base   string // the sweep file's folder, absolute: file inputs are relative to it
	inputs map[string]string
	mixed  map[string]bool
}

func newDependencies(plan *Plan) *dependencies {
	base, err := filepath.Abs(filepath.Dir(plan.File.Path))
	if err != nil {
		base = filepath.Dir(plan.File.Path)
	}
	return &dependencies{base: base, inputs: map[string]string{}, mixed: map[string]bool{}}
}

// runUse is what a run used: its inputs (Manifest.Inputs, with files by
// absolute path), those of which it used two versions itself (a plugin
// rebuilt and restarted within the run, a file replaced between two of
// its readings), and the parameters it read.
type runUse struct {
	inputs map[string]string
	mixed  []string
	params []string
}

// used is what the run res used: the proflab that ran it, its HALs'
// plugin executables, the files it read, and the parameters it read.
func (w *worker) used(res scenario.Result) runUse {
	inputs, mixed := usedInputs(res)
	return runUse{inputs: inputs, mixed: mixed, params: res.ParamsRead}
}

// usedInputs are the inputs of the run res, and those it saw in two
// versions. A plugin is an input of the runs it served, by the sha256 of
// the bytes its process was started from (halhost.Plugin.Served): not
// the configured plugins' sums as the sweep began, since a worker starts
// its processes later, and again after a crash, from whatever the file
// is then.
func usedInputs(res scenario.Result) (map[string]string, []string) {
	out := make(map[string]string, 1+len(res.Plugins)+len(res.Inputs))
	out[ProflabInput] = res.ProflabVersion
	var mixed []string
	for _, p := range res.Plugins {
		if !p.Served || p.SHA256 == "" {
			continue
		}
		k := PluginInput + p.Path
		if old, ok := out[k]; ok && old != p.SHA256 {
			mixed = append(mixed, k)
		}
		out[k] = p.SHA256
	}
	maps.Copy(out, res.Inputs)
	for _, k := range slices.Sorted(maps.Keys(res.InputVersions)) {
		if len(res.InputVersions[k]) > 1 { // read in two versions by the run itself
			mixed = append(mixed, k)
		}
	}
	return out, mixed
}

// key names a used input in the manifest: a file by its path relative to
// the sweep file's folder when inside it (so shards run from other
// checkouts of one project agree), with forward slashes.
func (d *dependencies) key(k string) string {
	if p, ok := strings.CutPrefix(k, PluginInput); ok {
		return PluginInput + d.key(p)
	}
	if !filepath.IsAbs(k) {
		return k
	}
	if rel, err := filepath.Rel(d.base, k); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(k)
}

// add records a run's used inputs; one already recorded with another
// version is mixed, and so are those the run itself saw mixed.
func (d *dependencies) add(used map[string]string, mixed []string) {
	for _, k := range mixed {
		d.mixed[d.key(k)] = true
	}
	for k, v := range used {
		k = d.key(k)
		if old, ok := d.inputs[k]; ok && old != v {
			d.mixed[k] = true
			continue
		}
		d.inputs[k] = v
	}
}

// mixedKeys are the mixed inputs, sorted (nil for none).
func (d *dependencies) mixedKeys() []string {
	if len(d.mixed) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(d.mixed))
}

// resume takes over the inputs the folder's earlier runs recorded and
// checks that proflab, the plugins and the files they read are still
// those versions: results of two versions of the code must not mix
// silently. With allow, a difference is recorded as mixed instead of
// refused.
func (d *dependencies) resume(old *Manifest, allow bool) error {
	maps.Copy(d.inputs, old.Inputs)
	for _, k := range old.Mixed {
		d.mixed[k] = true
	}
	var changed []string
	for _, k := range slices.Sorted(maps.Keys(old.Inputs)) {
		was := old.Inputs[k]
		now, ok := d.current(k)
		if !ok || now == was {
			continue
		}
		changed = append(changed, fmt.Sprintf("%s (%.12s then, %.12s now)", k, was, now))
		d.mixed[k] = true
	}
	if len(changed) > 0 && !allow {
		return fmt.Errorf("the runs already in this folder ran with other versions of %s: resuming would mix the results of two versions; choose a new --out, or add --allow-mixed to go on (recorded in sweep.json as mixed)", strings.Join(changed, ", "))
	}
	return nil
}

// current is the version of input k now, when this process can tell it:
// proflab's, or a file's sha256 ("" for a file that is gone).
func (d *dependencies) current(k string) (string, bool) {
	if k == ProflabInput {
		return version.String(), true
	}
	path := filepath.FromSlash(strings.TrimPrefix(k, PluginInput))
	if !filepath.IsAbs(path) {
		path = filepath.Join(d.base, path)
	}
	f, err := input.Open(hashedKind, path)
	if err != nil {
		return "", true // gone, or no longer a file: not the version recorded
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", true
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// hashedKind is an input whose sha256 --resume compares: a regular file
// (a FIFO is not waited on), hashed as a stream whatever its size.
var hashedKind = input.Kind{Name: "input", Limit: math.MaxInt64}
