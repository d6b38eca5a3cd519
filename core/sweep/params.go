package sweep

import (
	"maps"
	"slices"
)

// paramsRead gathers which of a sweep's parameters its runs read from
// lab.params. A parameter that [config] maps to a configuration key is
// used by the configuration, so it counts as read.
type paramsRead struct {
	all  []string // the sweep's parameters: [grid], [zip] and [set]
	read map[string]bool
}

// newParamsRead starts from what the folder's earlier runs read (old's
// ParamsRead, with --resume).
func newParamsRead(plan *Plan, old *Manifest) *paramsRead {
	f := plan.File
	p := &paramsRead{read: map[string]bool{}}
	for _, ax := range append(slices.Clone(f.Grid), f.Zip...) {
		p.all = append(p.all, ax.Name)
	}
	p.all = append(p.all, slices.Collect(maps.Keys(f.Set))...)
	slices.Sort(p.all)
	for name := range f.Config {
		p.read[name] = true
	}
	if old != nil {
		p.add(old.ParamsRead)
	}
	return p
}

// add records parameters a run read.
func (p *paramsRead) add(names []string) {
	for _, n := range names {
		p.read[n] = true
	}
}

// lists are the sweep's parameters that were read and those that were
// not, sorted.
func (p *paramsRead) lists() (read, unread []string) {
	for _, n := range p.all {
		if p.read[n] {
			read = append(read, n)
		} else {
			unread = append(unread, n)
		}
	}
	return read, unread
}
