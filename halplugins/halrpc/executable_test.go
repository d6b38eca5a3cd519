package halrpc

import (
	"os"
	"sync"
	"testing"
)

// BenchmarkOpenExecutable measures what Start adds to a plugin's start to
// hash what it executes (issue 29.2, 29.11): opening the executable (this
// test binary, about the size of a plugin) and hashing it, the first time
// ("fresh") and for a file this process has hashed in the same state
// ("known": a plugin restarted after a crash, another worker's start).
func BenchmarkOpenExecutable(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(exe)
	if err != nil {
		b.Fatal(err)
	}
	for _, known := range []bool{false, true} {
		name := "fresh"
		if known {
			name = "known"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			for b.Loop() {
				if !known {
					hashes = sync.Map{}
				}
				e, err := openExecutable(exe)
				if err != nil {
					b.Fatal(err)
				}
				e.close()
			}
		})
	}
}
