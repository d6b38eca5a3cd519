package halhost

import (
	"sync"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
)

// maxDescribed bounds the descriptions a host remembers: a sweep's grid
// has a handful of machines per HAL; past this the host forgets them all
// and starts again.
const maxDescribed = 1024

// descriptions remembers what configured plugin instances described, by
// plugin process, machine (without its seed) and settings, so that the
// next instance of the same kind opens without waiting (Host.openKnown).
type descriptions struct {
	mu sync.Mutex
	m  map[describedAs]described
}

// describedAs is what a description may depend on.
type describedAs struct {
	hal      string
	proc     *halrpc.Client // a restarted plugin describes itself again
	machine  hal.Machine    // with Seed 0
	settings string
}

type described struct {
	desc      hal.Description
	abilities hal.Abilities
}

func describedKey(name string, proc *halrpc.Client, m hal.Machine, settings []byte) describedAs {
	m.Seed = 0
	return describedAs{hal: name, proc: proc, machine: m, settings: string(settings)}
}

func (d *descriptions) get(k describedAs) (hal.Description, hal.Abilities, bool) {
	if k.proc == nil {
		return hal.Description{}, hal.Abilities{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	v, ok := d.m[k]
	return v.desc, v.abilities, ok
}

func (d *descriptions) put(k describedAs, desc hal.Description, a hal.Abilities) {
	if k.proc == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil || len(d.m) >= maxDescribed {
		d.m = map[describedAs]described{}
	}
	d.m[k] = described{desc, a}
}
