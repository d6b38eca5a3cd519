// Command prog is the real program of examples/real-program: it builds a
// small document store — generates records, encodes them as JSON, sorts
// them, compresses the result and hashes it — over and over for a few
// seconds under Go's CPU profiler, and writes the profile (pprof's
// gzipped profile.proto) that the example imports into proflab.
//
//	go run ./examples/real-program/prog -o examples/real-program/prog.pb.gz
//
// The work is deterministic; the profile is what the Go runtime's 100 Hz
// sampler saw on the machine it ran on, as any real profile is.
package main

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"time"
)

// record is one document of the store.
type record struct {
	ID    int      `json:"id"`
	Name  string   `json:"name"`
	Tags  []string `json:"tags"`
	Score float64  `json:"score"`
}

// generate makes n records from rng.
func generate(rng *rand.Rand, n int) []record {
	words := strings.Fields("kernel profile bucket interrupt source interval hal timer counter pebs sample stack")
	out := make([]record, n)
	for i := range out {
		tags := make([]string, 1+rng.IntN(4))
		for j := range tags {
			tags[j] = words[rng.IntN(len(words))]
		}
		out[i] = record{ID: i, Name: fmt.Sprintf("doc-%06d", rng.IntN(1_000_000)), Tags: tags, Score: rng.Float64()}
	}
	return out
}

// encode writes the records as JSON lines.
func encode(rs []record) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, r := range rs {
		_ = enc.Encode(r)
	}
	return b.Bytes()
}

// rank sorts the records by score, then name.
func rank(rs []record) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Score != rs[j].Score {
			return rs[i].Score > rs[j].Score
		}
		return rs[i].Name < rs[j].Name
	})
}

// compress deflates data at the best compression.
func compress(data []byte) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	_, _ = w.Write(data)
	_ = w.Close()
	return b.Bytes()
}

// digest hashes data a few times over.
func digest(data []byte) [32]byte {
	sum := sha256.Sum256(data)
	for range 8 {
		sum = sha256.Sum256(append(sum[:], data[:len(data)/4]...))
	}
	return sum
}

func main() {
	out := flag.String("o", "prog.pb.gz", "where to write the CPU profile")
	seconds := flag.Float64("s", 4, "how long to work, in seconds")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "prog:", err)
		os.Exit(1)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "prog:", err)
		os.Exit(1)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	deadline := time.Now().Add(time.Duration(*seconds * float64(time.Second)))
	var rounds, bytesOut int
	for time.Now().Before(deadline) {
		rs := generate(rng, 4000)
		rank(rs)
		data := encode(rs)
		z := compress(data)
		d := digest(data)
		rounds++
		bytesOut += len(z) + int(d[0]&1)
	}
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "prog:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "prog: %d rounds, %d compressed bytes; profile in %s\n", rounds, bytesOut, *out)
}
