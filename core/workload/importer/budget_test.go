package importer_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// allocated is the bytes fn allocates (runtime.MemStats.TotalAlloc: an
// upper bound of what it holds at once).
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A gzip bomb is refused before it is inflated into memory: its trailer
// says how large it is (issue 29 case 16: 1 GiB was inflated into memory
// first, 2.7 GB at peak); it is inflated into nothing, up to the limit,
// to tell a truncated file (whose last bytes are no trailer) from it. One whose trailer understates is inflated at most as
// far as an import reads.
func TestGzipBombIsRefusedBeforeInflating(t *testing.T) {
	// 257 MiB of zeros: 17 gzip members of 16 MiB, then one of 1 MiB
	// whose trailer says 257 MiB (as one member of them all would)
	member := importtest.Gzip(t, make([]byte, 16<<20))
	bomb := bytes.Repeat(member, 16)
	bomb = append(bomb, importtest.Gzip(t, make([]byte, 1<<20))...)
	binary.LittleEndian.PutUint32(bomb[len(bomb)-4:], importer.MaxDecompressed+1<<20)
	var err error
	n := allocated(func() { _, err = importer.Import("bomb.gz", bomb, importer.Options{}) })
	if err == nil || !strings.Contains(err.Error(), "bomb.gz: the gzip trailer says the content inflates to at least 257 MiB, more than the 256 MiB an import reads") ||
		!strings.Contains(err.Error(), "the file is not truncated") || !strings.Contains(err.Error(), "nothing was kept") {
		t.Errorf("error %v", err)
	}
	if n > 4<<20 {
		t.Errorf("refusing the bomb allocated %s; want next to nothing", input.Size(int64(n)))
	}
	// m:run{ workload = "bomb.gz" } says so too (not that it is no TOML)
	path := filepath.Join(t.TempDir(), "bomb.gz")
	if err := os.WriteFile(path, bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := importer.Load(path, "x64"); err == nil || !strings.Contains(err.Error(), "bomb.gz: the gzip trailer says the content inflates to at least 257 MiB") {
		t.Errorf("Load: %v", err)
	}
	// The trailer understates (the last member's): the content is
	// counted as it inflates, up to the limit, and not kept.
	bomb = append(bytes.Repeat(member, 16), member...)
	n = allocated(func() { _, err = importer.Import("liar.gz", bomb, importer.Options{}) })
	if err == nil || !strings.Contains(err.Error(), "liar.gz: the gzipped content inflates past 256 MiB, the most an import reads") {
		t.Errorf("error %v", err)
	}
	if n > 32<<20 {
		t.Errorf("refusing a bomb with an understating trailer allocated %s; want its last member, 16 MiB, and little more", input.Size(int64(n)))
	}
}

// With a memory budget, the content may have at most Memory/MemoryPerByte
// bytes, gzipped or not; a larger one is refused at once, saying how to
// raise the budget or make the profile smaller.
func TestMemoryBudgetCapsTheContent(t *testing.T) {
	folded := []byte(strings.Repeat("main;work;leaf 1\n", 1<<16)) // 1.1 MiB
	opt := importer.Options{Memory: 3 << 20}                      // reads 1 MiB
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"plain.folded", folded, "the profile has 1.1 MiB, more than the 1 MiB an import reads"},
		{"honest.gz", importtest.Gzip(t, folded), "the gzip trailer says the content inflates to at least 1.1 MiB, more than the 1 MiB an import reads"},
	} {
		_, err := importer.Import(c.name, c.data, opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "a memory budget of 3 MiB reads at most 1 MiB: raise the budget (--memory)") {
			t.Errorf("%s: error %v; want %q and the advice", c.name, err, c.want)
		}
	}
	if _, err := importer.Import("ok.folded", folded, importer.Options{Memory: 4 << 20}); err != nil {
		t.Errorf("a budget of 4 MiB: %v", err)
	}
	// several gzip members: the last one's trailer understates the
	// content, which is read whole all the same
	members := append(importtest.Gzip(t, folded[:len(folded)/2]), importtest.Gzip(t, folded[len(folded)/2:])...)
	if im, err := importer.Import("members.gz", members, importer.Options{Memory: 4 << 20}); err != nil || im.Samples != 1<<16 {
		t.Errorf("two gzip members: %v; want %d samples", err, 1<<16)
	}
	if _, err := importer.Import("members.gz", members, opt); err == nil || !strings.Contains(err.Error(), "inflates past 1 MiB") {
		t.Errorf("two gzip members, more than the budget reads: error %v", err)
	}
	// a binary (pprof) profile: its parser holds ten bytes per byte
	synth := importtest.Synthetic(2000, 20000, 5) // 2.3 MiB of proto once inflated
	if _, err := importer.Import("cpu.pb.gz", synth, importer.Options{Memory: 12 << 20}); err == nil ||
		!strings.Contains(err.Error(), "cpu.pb.gz: the profile is 2.3 MiB of binary (pprof) profile, and pprof's parser holds about 10 bytes of memory per byte of it, which cannot be stopped half way: a memory budget of 12 MiB reads at most 1.2 MiB of it") {
		t.Errorf("pprof under 12 MiB: %v", err)
	}
	if _, err := importer.Import("cpu.pb.gz", synth, importer.Options{Memory: 24 << 20}); err != nil {
		t.Errorf("pprof under 24 MiB: %v", err)
	}
	if importer.MaxDecompressed != input.Workload.Limit {
		t.Errorf("MaxDecompressed %d, the workload files' limit %d: a profile may have what a workload file may", importer.MaxDecompressed, input.Workload.Limit)
	}
}

// budgetError stands for the memory watchdog's cause.
type budgetError struct{}

func (budgetError) Error() string { return "the memory budget" }

// An import stops soon after its context ends (its memory budget's
// watchdog): the error wraps the cause.
func TestImportStopsWhenItsContextEnds(t *testing.T) {
	var b strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&b, "main;f%d;g%d 1\n", i%100, i)
	}
	data := []byte(b.String())
	perf := bytes.Repeat(readTestdata(t, "perf_g.txt"), 200)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(budgetError{})
	for _, c := range []struct {
		name string
		data []byte
	}{{"distinct.folded", data}, {"big.perf", perf}, {"callgrind", readTestdata(t, "callgrind_prog.out.gz")}} {
		_, err := importer.ImportContext(ctx, c.name, c.data, importer.Options{})
		if !errors.Is(err, budgetError{}) || !strings.HasPrefix(err.Error(), c.name+": the import stopped: the memory budget") {
			t.Errorf("%s: error %v; want the context's cause", c.name, err)
		}
	}
}

// Detection looks at a bounded part of each line: a profile of one huge
// line (a 26 MB JSON document) is not copied whole to be detected.
func TestDetectionDoesNotCopyALongLine(t *testing.T) {
	line := []byte("{\"nodes\": [" + strings.Repeat("{\"id\": 1}, ", 2<<20) + "{}], \"x\": 1}")
	n := allocated(func() { _, _ = importer.Detect(line) })
	if n > 1<<20 {
		t.Errorf("detecting a %s line allocated %s; want little (a bounded part of the line)", input.Size(int64(len(line))), input.Size(int64(n)))
	}
	long := strings.Repeat("frame;", 4000) + "leaf 7\n" // a 24 KiB folded line
	if f, err := importer.Detect([]byte(long + long)); err != nil || f != importer.Folded {
		t.Errorf("a folded profile of long lines: %q, %v; want folded (the count at the end of the line is seen)", f, err)
	}
}

// The importers' memory is bounded per byte of profile: importing and
// writing a profile allocates (all told, garbage included, an upper
// bound of what it holds at once) at most a fixed number of bytes per
// byte of it. Before the streaming TOML encoder, distinct folded stacks
// took 350.
func TestImportAllocationPerInputByte(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("imports 12 MiB, and counts allocations (which the race detector's pools change)")
	}
	var distinct, same strings.Builder
	for i := 0; distinct.Len() < 4<<20; i++ {
		fmt.Fprintf(&distinct, "main;f%d;g%d %d\n", i%1000, i, i%7+1)
	}
	for i := 0; same.Len() < 4<<20; i++ {
		fmt.Fprintf(&same, "main;work;leaf %d\n", i%7+1)
	}
	perf := readTestdata(t, "perf_g.txt")
	perf = bytes.Repeat(perf, (4<<20)/len(perf))
	for _, c := range []struct {
		name string
		data []byte
		max  float64
	}{
		{"repeated.folded", []byte(same.String()), 16},
		{"repeated.perf", perf, 16},
		{"distinct.folded", []byte(distinct.String()), 128},
	} {
		var err error
		n := allocated(func() {
			var im *importer.Imported
			if im, err = importer.Import(c.name, c.data, importer.Options{}); err == nil {
				err = im.WriteTOML(io.Discard)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if per := float64(n) / float64(len(c.data)); per > c.max {
			t.Errorf("%s: %.1f bytes allocated per byte of profile; want at most %.0f", c.name, per, c.max)
		}
	}
}

// A workload whose TOML would pass the 256 MiB a workload file may have
// is refused before anything is written (issue 29 case 19: a 14 MB pprof
// of 1.1 M locations imported with exit 0, and m:run refused the file).
func TestWorkloadTooLargeForAFileIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 256 MiB of TOML to a counter")
	}
	frames := make([]string, 100)
	for i := range frames {
		frames[i] = fmt.Sprintf("some::namespace::function_number_%04d", i)
	}
	// 70,000 stacks sharing one frames slice: 280 MiB of TOML, little memory
	stacks := make([]workload.Stack, 70000)
	for i := range stacks {
		stacks[i] = workload.Stack{Frames: frames, Weight: 1}
	}
	spec := &workload.Spec{Name: "big", Processes: []workload.Process{{Name: "p", Threads: []workload.Thread{{Stacks: stacks}}}}}
	im := &importer.Imported{Source: "big.pb.gz", Format: importer.Pprof, Spec: spec}
	err := im.CheckSize()
	if err == nil || !strings.Contains(err.Error(), "big.pb.gz: the workload (0 functions, 70000 stacks) would be more than 256 MiB of TOML, the most a workload file may have (m:run could not read it), and nothing was written: import less") {
		t.Errorf("error %v", err)
	}
	spec.Processes[0].Threads[0].Stacks = stacks[:60000] // 240 MiB
	if err := im.CheckSize(); err != nil {
		t.Errorf("240 MiB of TOML: %v", err)
	}
}

// A truncated .pb.gz is said to be truncated first: its last 4 bytes
// are the middle of its stream, not a trailer, and were read as "the
// content inflates to at least 3.3 GiB" (issue 35 §3). Both when that
// size is one deflate cannot make of the file (more than 1032 times
// it) and when it is one it could, past the limit.
func TestTruncatedGzipIsSaidTruncated(t *testing.T) {
	t.Parallel()
	// incompressible: the cut's last 4 bytes are random
	content := make([]byte, 300<<10)
	rng := rand.New(rand.NewPCG(7, 35))
	for i := range content {
		content[i] = byte(rng.Uint32())
	}
	full := importtest.Gzip(t, content)
	for _, c := range []struct {
		name    string
		trailer uint32 // the size the cut's last 4 bytes are made to say
		max     int64
	}{
		{"impossible trailer", 3_500_000_000, 0},
		{"plausible trailer past the limit", 2 << 20, 1 << 20},
	} {
		cut := bytes.Clone(full[:len(full)/2])
		binary.LittleEndian.PutUint32(cut[len(cut)-4:], c.trailer)
		opt := importer.Options{Memory: c.max * importer.MemoryPerByte}
		_, err := importer.Import("cpu.pb.gz", cut, opt)
		if err == nil || !strings.HasPrefix(err.Error(), "cpu.pb.gz: the file looks truncated: it ends in the middle of its gzip stream") {
			t.Errorf("%s: error %v, want one saying first that the file looks truncated", c.name, err)
		}
	}
}
