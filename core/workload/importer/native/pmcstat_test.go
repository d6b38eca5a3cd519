package native_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// pmcstat -G: each sampled function's tree of callers; the samples that
// end at a node (its count less its callers') are a stack from the
// sampled function up to it. The cycles section weighs, the
// instructions section gives CPIs.
func TestPmcstat(t *testing.T) {
	t.Parallel()
	im := importFile(t, "pmcstat.txt", importer.Options{})
	if im.Format != importer.Pmcstat || im.SampleType != "CPU_CLK_UNHALTED_CORE" || im.PeriodType != "cycles" || im.Samples != 100 {
		t.Errorf("format %s, sample type %q (%s), %d samples; want pmcstat, CPU_CLK_UNHALTED_CORE (cycles), 100", im.Format, im.SampleType, im.PeriodType, im.Samples)
	}
	importtest.ApproxWeights(t, "stack", timeWeights(im.Spec), map[string]float64{
		"compress_block <- ZSTD_compressStream <- main":          50,
		"compress_block <- ZSTD_compressStream <- worker_thread": 10,
		"memcpy <- compress_block <- ZSTD_compressStream":        20,
		"memcpy":                    10, // 30 samples, 20 of them with callers
		"sched_idletd <- fork_exit": 10,
	})
	// Images by the path after @, inherited by the lines without one.
	for _, c := range []struct {
		img, fn string
		kernel  bool
	}{{"zstd", "main", false}, {"libthr.so.3", "worker_thread", false}, {"libc.so.7", "memcpy", false}, {"kernel", "fork_exit", true}} {
		img, _ := importtest.Function(t, im.Spec, c.img, c.fn)
		if img.Kernel != c.kernel {
			t.Errorf("image %s: kernel %v, want %v", img.Name, img.Kernel, c.kernel)
		}
	}
	// CPI: cycles over instructions samples, equal rates assumed.
	if _, f := importtest.Function(t, im.Spec, "zstd", "compress_block"); !importtest.Approx(f.CPI, 60./150) {
		t.Errorf("compress_block CPI %v, want 60/150", f.CPI)
	}
	if _, f := importtest.Function(t, im.Spec, "libc.so.7", "memcpy"); !importtest.Approx(f.CPI, 30./50) {
		t.Errorf("memcpy CPI %v, want 30/50", f.CPI)
	}
	if !strings.Contains(strings.Join(im.Notes, "\n"), "same rate") {
		t.Errorf("notes %q do not say the rates assume equal sampling rates", im.Notes)
	}
	drop := importFile(t, "pmcstat.txt", importer.Options{DropIdle: true})
	if drop.Samples != 90 {
		t.Errorf("--drop-idle: %d samples, want 90 (sched_idletd's 10 dropped)", drop.Samples)
	}
}

// The weight event: cycles, else instructions, else the first section's
// (with a warning when it is not time).
func TestPmcstatEvents(t *testing.T) {
	t.Parallel()
	section := func(ev string, n int) string {
		return "@ " + ev + " [" + strconv.Itoa(n) + " samples]\n\n100.0%  [" + strconv.Itoa(n) + "]       f @ /bin/x\n\n"
	}
	for _, c := range []struct {
		text, weight string
		warn         bool
	}{
		{section("LLC_MISSES", 5) + section("unhalted-cycles", 7), "unhalted-cycles", false},
		{section("br_misp_retired.all_branches", 5) + section("inst_retired.any", 9), "inst_retired.any", false},
		{section("LLC_MISSES", 5), "LLC_MISSES", true},
		{section("some_event", 5), "some_event", false},
	} {
		im, err := importer.Import("ev", []byte(c.text), importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if im.SampleType != c.weight || (len(im.Warnings) > 0) != c.warn {
			t.Errorf("events %q: weight %s, warnings %q; want %s, a warning: %v", c.text, im.SampleType, im.Warnings, c.weight, c.warn)
		}
	}
}

// timeWeights are the stacks' weights in the source's unit: a stack's
// weight is instructions, its time that times its leaf's CPI.
func timeWeights(s *workload.Spec) map[string]float64 {
	cpi := map[string]float64{}
	s.ImageRefs(func(ref string, f *workload.Function) { cpi[ref] = f.CPI })
	out := map[string]float64{}
	for _, p := range s.Processes {
		for _, th := range p.Threads {
			for _, st := range th.Stacks {
				w := st.Weight
				if c := cpi[st.Frames[0]]; c > 0 {
					w *= c
				}
				out[strings.Join(st.Frames, " <- ")] += w
			}
		}
	}
	return out
}

func TestPmcstatErrors(t *testing.T) {
	t.Parallel()
	const h = "@ cycles [10 samples]\n\n"
	for _, c := range []struct{ name, text, want string }{
		{"no section", "100.0%  [1]  f @ /bin/x\n", "in:1: \"100.0%  [1]  f @ /bin/x\" comes before any"},
		{"callers exceed", h + "100.0%  [10]  f @ /bin/x\n 100.0%  [11]   g\n", "in:4: the callers of \"f\" (line 3) have more samples (11) than it has (10)"},
		{"skipped level", h + "100.0%  [10]  f @ /bin/x\n   100.0%  [10]     g\n", "in:4: \"g\" is 3 levels deeper"},
		{"no samples", h, "in:1: the cycles section has no sample left"},
	} {
		_, err := importer.Import("in", []byte(c.text), importer.Options{Format: importer.Pmcstat})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
