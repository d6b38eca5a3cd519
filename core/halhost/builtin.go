package halhost

import (
	"path/filepath"
	"strings"

	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/pebs"
	"github.com/proflab/proflab/halplugins/pmu"
)

// Builtin returns the shipped HALs' factories by plugin name
// ("proflab-hal-apic"), for `transport = "inproc"`. The map is the caller's.
func Builtin() map[string]hal.Factory {
	return map[string]hal.Factory{
		"proflab-hal-apic": apic.New,
		"proflab-hal-pmu":  pmu.New,
		"proflab-hal-pebs": pebs.New,
	}
}

// builtinFactory finds the in-process factory for a plugin name or path
// (its base name, without .exe), or for a bare HAL name ("apic").
func builtinFactory(plugin string) (hal.Factory, bool) {
	base := strings.TrimSuffix(filepath.Base(plugin), ".exe")
	b := Builtin()
	if f, ok := b[base]; ok {
		return f, true
	}
	f, ok := b["proflab-hal-"+base]
	return f, ok
}
