package config

import "maps"

// Clone returns a copy of c that shares nothing c's callers may change:
// its machine's HAL list, its workload folders, its HAL table and each HAL's settings table (the
// settings' values themselves are shared), and the keys' origins.
func (c *Config) Clone() *Config {
	out := *c
	out.Machine.HAL = append([]string(nil), c.Machine.HAL...)
	out.Run.WorkloadDirs = append([]string(nil), c.Run.WorkloadDirs...)
	out.HAL = make(map[string]HAL, len(c.HAL))
	for n, h := range c.HAL {
		h.Settings = maps.Clone(h.Settings)
		out.HAL[n] = h
	}
	out.origin = maps.Clone(c.origin)
	return &out
}
