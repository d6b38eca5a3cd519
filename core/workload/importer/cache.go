package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/workload"
)

// A Cache keeps the workloads [Load] made from files, by their path,
// content and target architecture, so that a scenario's m:run calls and
// a sweep's runs that name the same file parse or import it once: a 15
// MB imported workload takes about a second to parse and milliseconds to
// read and hash. A file is read and hashed again only when its identity
// (input.Identity: device, inode, size, modification and status-change
// times) is not the one it had when it was last read, or when it had
// changed less than input.RecentChange before that reading (its
// timestamps could not yet tell a later write): a changed file is never
// answered from the cache, and an unchanged one costs a stat. The path is
// part of the key because an import names the workload (and, in some
// formats, its process) after the file and records it as the source: a
// copy of the file under another name is imported as itself. It is safe
// for concurrent use.
//
// The workloads it returns are shared: callers must not modify them
// (workload.Spec.Resolve does not).
type Cache struct {
	mu      sync.Mutex
	entries []cached // most recently used last
	bytes   int64    // the source bytes of the entries
	max     int64
	now     func() time.Time // the clock reads are timed by (tests)
	reads   int              // files read (tests)
}

// cached is one workload of a Cache.
type cached struct {
	key  cacheKey
	ld   Loaded
	size int64
	// file is the identity the file had when it was last read with
	// this content; settled whether it stands for the content.
	file    input.Identity
	settled bool
}

// cacheKey is what a cached workload was made from.
type cacheKey struct {
	path string
	sum  [sha256.Size]byte
	arch string // the architecture and the import's choices (LoadOptions.key)
}

// cacheEntries is the most workloads a Cache keeps.
const cacheEntries = 8

// NewCache makes a cache that keeps workloads made from at most maxBytes
// of files (and at most 8 of them), dropping the least recently used.
func NewCache(maxBytes int64) *Cache { return &Cache{max: maxBytes, now: time.Now} }

// Loaded is a workload file as [Cache.Load] read it.
type Loaded struct {
	// Spec is the workload (shared: do not modify it).
	Spec *workload.Spec
	// Imported is the import's provenance, nil for a workload TOML.
	Imported *Imported
	// SHA256 is the hex sha256 of the file's content as it was read.
	SHA256 string
	// Key names what the workload was made from: the file's path, the
	// sha256 of its content, the architecture and the import's choices. Two loads with the
	// same Key give workloads of the same content (the same Spec,
	// through one Cache), so what a run derives from the workload may be
	// kept under it (core/sim's Cache and Sim.RunCached); an edited file
	// has a new Key.
	Key string
}

// Load is [Load] through the cache: a file whose identity is the one it
// had when it was last read (and settled then) is answered without
// reading it; any other is read and hashed, and parsed or imported only
// when no workload was made from the same bytes for the same
// architecture. A nil Cache caches nothing.
func (c *Cache) Load(path, arch string) (Loaded, error) {
	return c.LoadWith(path, LoadOptions{Arch: arch})
}

// LoadWith is [Cache.Load] with the import's choices (o): the workloads
// of one file imported with different choices are kept apart.
func (c *Cache) LoadWith(path string, o LoadOptions) (Loaded, error) {
	arch := o.key()
	if c != nil {
		if id, ok := input.IdentityAt(path); ok {
			if ld, ok := c.unchanged(path, arch, id); ok {
				return ld, o.admit(path, ld)
			}
		}
	}
	var readAt time.Time
	if c != nil {
		readAt = c.clock()
	}
	data, fi, err := input.ReadFileInfo(input.Workload, path)
	if input.Refused(err) {
		return Loaded{}, err
	}
	if err != nil {
		return Loaded{}, fmt.Errorf("workload: %w", err)
	}
	key := cacheKey{path: path, sum: sha256.Sum256(data), arch: arch}
	out := Loaded{SHA256: hex.EncodeToString(key.sum[:])}
	out.Key = strconv.Quote(path) + " " + out.SHA256 + " " + arch
	if c == nil {
		out.Spec, out.Imported, err = parse(path, data, o)
		return out, err
	}
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	id := input.IdentityOf(fi)
	if ld, ok := c.find(key, id, id.Settled(readAt)); ok {
		return ld, o.admit(path, ld)
	}
	out.Spec, out.Imported, err = parse(path, data, o)
	if err != nil {
		return Loaded{}, err
	}
	c.add(cached{key: key, ld: out, size: int64(len(data)), file: id, settled: id.Settled(readAt)})
	return out, nil
}

// clock is the time now, by the cache's clock.
func (c *Cache) clock() time.Time {
	if c.now == nil {
		return time.Now()
	}
	return c.now()
}

// unchanged returns the workload of path for arch when the file's
// identity is still id, as it was (settled) when it was last read.
func (c *Cache) unchanged(path, arch string, id input.Identity) (Loaded, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.settled && e.file == id && e.key.path == path && e.key.arch == arch {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			return e.ld, true
		}
	}
	return Loaded{}, false
}

// find returns the workload of key, now the most recently used entry,
// which the file's identity id (settled or not) now stands for.
func (c *Cache) find(key cacheKey, id input.Identity, settled bool) (Loaded, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == key {
			e.file, e.settled = id, settled
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			return e.ld, true
		}
	}
	return Loaded{}, false
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
