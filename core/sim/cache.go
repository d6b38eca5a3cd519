package sim

import (
	"errors"
	"sync"

	"github.com/proflab/proflab/core/workload"
)

// A Cache keeps, across the runs of one process, what a run derives
// from a workload that does not change, before any simulated time
// passes: its resolution for the machine's architecture, its functions as the engine
// executes them, its threads' segment types and their classes for each
// list of enabled counters. A run of a workload the cache holds pays
// only for its simulated time (see [Sim.RunCached]): for an imported
// workload of 5,000 functions and 30,000 stacks, that saves some 60 ms
// of processor time at every run after the first
// (docs/workload-import.md, Cost).
//
// Workloads are kept by their content key (a workload file's path,
// sha256 and architecture, importer.Loaded.Key) and the machine's
// architecture. The
// cache keeps at most 8 workloads and, by an estimate of what their
// preparation adds to the parsed workload (which importer.Cache counts),
// maxBytes of memory, dropping the least recently used; a workload
// bigger than that is prepared for each run. Each keeps at most 64 class
// sets (one per mix of threads and list of counters' events; more are
// made for their run alone), so a sweep of a million runs over one
// workload holds what its first runs made, no more.
//
// What it keeps does not change once made and holds no run's state, so
// it is safe for concurrent use by the runs of a sweep's workers; the
// first run that needs a workload prepares it while the others that need
// it wait.
type Cache struct {
	mu      sync.Mutex
	entries []*entry // most recently used last
	bytes   int64    // the entries' estimated memory
	max     int64
}

// entry is one prepared workload of a Cache, or one being prepared.
type entry struct {
	key    cacheKey
	done   chan struct{} // closed when p or err is set
	p      *prepared
	err    error
	size   int64 // estimated memory, counted in Cache.bytes while listed
	listed bool  // in Cache.entries
}

// cacheKey is what a prepared workload was made from: the workload's
// content and the machine's target.
type cacheKey struct {
	content string
	target  workload.Target
}

// cacheEntries is the most workloads a Cache keeps.
const cacheEntries = 8

// NewCache makes a cache that keeps at most 8 prepared workloads of at
// most maxBytes of estimated memory in all.
func NewCache(maxBytes int64) *Cache { return &Cache{max: maxBytes} }

// prepared is w, whose content key is key, prepared for target: from the
// cache, or made and kept. A nil cache, an empty key or a workload whose
// Process.Proc names a process other than its Name prepares w for its
// run alone.
func (c *Cache) prepared(key string, w *workload.Spec, target workload.Target) (*prepared, error) {
	if c == nil || key == "" {
		return newPrepared(w, target)
	}
	shared, ok := withoutProcs(w)
	if !ok {
		return newPrepared(w, target)
	}
	k := cacheKey{key, target}
	c.mu.Lock()
	for i, e := range c.entries {
		if e.key == k {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			c.mu.Unlock()
			<-e.done
			return e.p, e.err
		}
	}
	e := &entry{key: k, done: make(chan struct{}), listed: true}
	c.entries = append(c.entries, e)
	c.trim()
	c.mu.Unlock()

	made := false
	defer func() {
		if !made { // a panic (a bug in proflab): nobody may wait for e
			c.mu.Lock()
			e.err = errors.New("proflab bug: preparing the workload failed in another run (please report it)")
			c.drop(e)
			close(e.done)
			c.mu.Unlock()
		}
	}()
	p, err := newPrepared(shared, target)
	var size int64
	if err == nil {
		size = p.bytes()
	}
	made = true
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(e.done)
	e.p, e.err = p, err
	switch {
	case err != nil:
		c.drop(e) // not kept: the next run says it again
	case !e.listed: // dropped meanwhile
	case size > c.max:
		c.drop(e) // bigger than the whole cache: prepared for each run
	default:
		p.cache, p.entry = c, e
		e.size = size
		c.bytes += size
		c.trim()
	}
	return p, err
}

// Resolve is w, whose content key is key, resolved for target: the
// resolution c keeps for the runs of that workload (prepared and kept
// now if it was not), shared, so the caller must not modify it. A nil c
// or an empty key resolves w ([workload.Spec.Resolve]).
func (c *Cache) Resolve(key string, w *workload.Spec, target workload.Target) (*workload.Resolved, error) {
	if c == nil || key == "" {
		return w.Resolve(target)
	}
	p, err := c.prepared(key, w, target)
	if err != nil {
		return nil, err
	}
	return p.r, nil
}

// withoutProcs is w without its processes' Proc handles, which belong to
// one run's machine and must not be kept: w itself when it has none. It
// is false when a Proc's name differs from its process's Name (the
// resolution would then differ).
func withoutProcs(w *workload.Spec) (*workload.Spec, bool) {
	has := false
	for _, p := range w.Processes {
		if p.Proc != nil {
			if p.Proc.Name() != p.Name {
				return nil, false
			}
			has = true
		}
	}
	if !has {
		return w, true
	}
	cp := *w
	cp.Processes = append([]workload.Process(nil), w.Processes...)
	for i := range cp.Processes {
		cp.Processes[i].Proc = nil
	}
	return &cp, true
}

// grow counts n more bytes of e's (a class set kept), dropping the least
// recently used entries over the bounds.
func (c *Cache) grow(e *entry, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !e.listed {
		return
	}
	if e.size+n > c.max {
		c.drop(e) // grown bigger than the whole cache
		return
	}
	e.size += n
	c.bytes += n
	c.trim()
}

// trim drops the least recently used entries while there are more than
// cacheEntries or more than max bytes.
func (c *Cache) trim() {
	for len(c.entries) > 0 && (len(c.entries) > cacheEntries || c.bytes > c.max) {
		c.drop(c.entries[0])
	}
}

// drop removes e from the entries (the runs holding its prepared
// workload keep it until they end).
func (c *Cache) drop(e *entry) {
	for i, x := range c.entries {
		if x == e {
			c.entries = append(c.entries[:i:i], c.entries[i+1:]...)
			c.bytes -= e.size
			e.listed = false
			return
		}
	}
}

// Len is the number of workloads the cache keeps, and Bytes their
// estimated memory.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Bytes is the estimated memory of the workloads the cache keeps.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
