// Package version says which proflab this is, for `proflab --version` and
// result.json: the version stamped at build time (make build sets it from
// git describe), else the module version and VCS revision Go recorded in
// the binary, else "devel".
package version

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Stamp is set at build time with
// -ldflags "-X github.com/proflab/proflab/core/version.Stamp=v1.2.3".
var Stamp string

// String returns the version: the stamp, else the module version (or
// "devel") followed by the VCS revision (and "+dirty" for a modified
// tree) when the build recorded them.
func String() string {
	if Stamp != "" {
		return Stamp
	}
	return fromBuild()
}

// fromBuild is the version from the build information, read once: a
// sweep asks for it in every run.
var fromBuild = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" && !strings.Contains(v, rev[:min(12, len(rev))]) {
		v += " " + rev[:min(12, len(rev))] + dirty
	}
	return v
})
