package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/workload"
)

// A Cache keeps the workloads [Load] made from files, by their path,
// content and target architecture, so that a scenario's m:run calls and
// a sweep's runs that name the same file read it each time but parse or
// import it once: a 15 MB imported workload takes about a second to
// parse and milliseconds to hash. The file is always read again, so a
// changed file is never answered from the cache. The path is part of
// the key because an import names the workload (and, in some formats,
// its process) after the file and records it as the source: a copy of
// the file under another name is imported as itself. It is safe for
// concurrent use.
//
// The workloads it returns are shared: callers must not modify them
// (workload.Spec.Resolve does not).
type Cache struct {
	mu      sync.Mutex
	entries []cached // most recently used last
	bytes   int64    // the source bytes of the entries
	max     int64
}

// cached is one workload of a Cache.
type cached struct {
	key  cacheKey
	spec *workload.Spec
	im   *Imported
	size int64
}

// cacheKey is what a cached workload was made from.
type cacheKey struct {
	path string
	sum  [sha256.Size]byte
	arch string
}

// cacheEntries is the most workloads a Cache keeps.
const cacheEntries = 8

// NewCache makes a cache that keeps workloads made from at most maxBytes
// of files (and at most 8 of them), dropping the least recently used.
func NewCache(maxBytes int64) *Cache { return &Cache{max: maxBytes} }

// Loaded is a workload file as [Cache.Load] read it.
type Loaded struct {
	// Spec is the workload (shared: do not modify it).
	Spec *workload.Spec
	// Imported is the import's provenance, nil for a workload TOML.
	Imported *Imported
	// SHA256 is the hex sha256 of the file's content as it was read.
	SHA256 string
	// Key names what the workload was made from: the file's path, the
	// sha256 of its content and the architecture. Two loads with the
	// same Key give workloads of the same content (the same Spec,
	// through one Cache), so what a run derives from the workload may be
	// kept under it (core/sim's Cache and Sim.RunCached); an edited file
	// has a new Key.
	Key string
}

// Load is [Load] through the cache: the file at path is read and hashed,
// and parsed or imported only when no workload was made from the same
// bytes for the same architecture. A nil Cache caches nothing.
func (c *Cache) Load(path, arch string) (Loaded, error) {
	data, err := input.ReadFile(input.Workload, path)
	if input.Refused(err) {
		return Loaded{}, err
	}
	if err != nil {
		return Loaded{}, fmt.Errorf("workload: %w", err)
	}
	key := cacheKey{path: path, sum: sha256.Sum256(data), arch: arch}
	out := Loaded{SHA256: hex.EncodeToString(key.sum[:])}
	out.Key = strconv.Quote(path) + " " + out.SHA256 + " " + arch
	if c != nil {
		if e, ok := c.find(key); ok {
			out.Spec, out.Imported = e.spec, e.im
			return out, nil
		}
	}
	out.Spec, out.Imported, err = parse(path, data, arch)
	if err != nil {
		return Loaded{}, err
	}
	if c != nil {
		c.add(cached{key: key, spec: out.Spec, im: out.Imported, size: int64(len(data))})
	}
	return out, nil
}

// find returns the entry of key, now the most recently used.
func (c *Cache) find(key cacheKey) (cached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == key {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			return e, true
		}
	}
	return cached{}, false
}

// add keeps e, dropping the least recently used entries over the bounds
// (a workload bigger than the whole cache is not kept).
func (c *Cache) add(e cached) {
	if e.size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, old := range c.entries {
		if old.key == e.key {
			return // made meanwhile by another run
		}
	}
	c.entries = append(c.entries, e)
	c.bytes += e.size
	for len(c.entries) > cacheEntries || c.bytes > c.max {
		c.bytes -= c.entries[0].size
		c.entries = c.entries[1:]
	}
}
