package importer

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profread"
)

// An otherProfile is a kind of file people give the importer that none of
// its formats reads: another tool's profile, a memory profile, a
// recording's binary. Detection names it, with what to do, instead of
// the bare "not a profile this importer knows".
type otherProfile struct {
	// what names the file's kind and says what to do instead.
	what string
	// is says whether the content is of this kind.
	is func(c *profread.Content) bool
}

// otherProfiles are the kinds detection recognises after every format
// has declined the content.
var otherProfiles = []otherProfile{
	{"perf record's binary perf.data: run `perf script -i perf.data > perf.txt` (add -F +pid to keep processes apart) and import perf.txt",
		func(c *profread.Content) bool { return hasPrefix(c.Data, "PERFILE2", "PERFFILE") }},
	{"a Java Flight Recorder recording (.jfr): convert it to folded stacks (async-profiler's `jfrconv --cpu -o collapsed rec.jfr out.folded`) and import those",
		func(c *profread.Content) bool { return hasPrefix(c.Data, "FLR\x00") }},
	{"a .NET EventPipe trace (.nettrace): convert it with `dotnet-trace convert --format Speedscope` and import the speedscope JSON",
		func(c *profread.Content) bool { return hasPrefix(c.Data, "Nettrace", "!FastSerialization") }},
	{"a Go execution trace (go test -trace, runtime/trace): it records scheduling, not CPU samples; record a CPU profile (go test -cpuprofile, runtime/pprof) and import that",
		func(c *profread.Content) bool {
			return hasPrefix(c.Data, "go 1.") && bytes.Contains(c.Data[:min(len(c.Data), 16)], []byte(" trace\x00"))
		}},
	{"a zip archive (an Instruments .trace bundle, or a zipped profile?): Instruments' traces are not read — in Instruments, select the call tree's top row, Edit > Deep Copy, and import the copied text; unzip any other profile first",
		func(c *profread.Content) bool { return hasPrefix(c.Data, "PK\x03\x04") }},
	{"a V8 heap profile (.heapprofile, DevTools' Allocation sampling): it measures memory allocated, not where the program ran; record a CPU profile (node --cpu-prof, DevTools' Performance panel) and import that",
		func(c *profread.Content) bool {
			j := c.JSON()
			return j.Has("head", '{') && j.Has("samples", '[') && !j.Has("timestamps", 0) && bytes.Contains(c.Data, []byte(`"selfSize"`))
		}},
	{"a V8 heap snapshot (.heapsnapshot): it is the heap's content, not a profile of time; record a CPU profile (node --cpu-prof, DevTools' Performance panel) and import that",
		func(c *profread.Content) bool {
			j := c.JSON()
			return j.Has("snapshot", '{') && j.Has("nodes", '[') && j.Has("strings", '[')
		}},
	{"a Safari Web Inspector timeline recording: Safari's format is not read; profile the page in Chrome (Performance panel, Save profile) or Firefox (profiler.firefox.com) and import that",
		func(c *profread.Content) bool {
			return c.JSON().Has("recording", '{') && bytes.Contains(c.Data, []byte(`"sampleStackTraces"`))
		}},
	{"node --prof-process's preprocessed V8 log: not read; record with node --cpu-prof and import the .cpuprofile",
		func(c *profread.Content) bool {
			j := c.JSON()
			return j.Has("code", '[') && j.Has("ticks", '[')
		}},
	{"a Chrome trace without a CPU profile (no Profile/ProfileChunk or CpuProfile event) and without duration events (B/E or X) to weigh: record with the Performance panel, or with the trace category disabled-by-default-v8.cpu_profiler",
		func(c *profread.Content) bool {
			j := c.JSON()
			return j.Kind == '[' && j.First.Has("ph", '"') || j.Has("traceEvents", '[')
		}},
	{"a flame graph's JSON tree (d3-flame-graph's {n, v, c}: perf script report flamegraph --format json): its nodes' values are not a profile's samples; import the output of `perf script` (or `perf script report stackcollapse`'s folded stacks) instead",
		func(c *profread.Content) bool {
			j := c.JSON()
			return j.Has("n", '"') && j.Has("v", '0') && j.Has("c", '[')
		}},
	{"V8's log (node --prof, isolate-*.log): not read; record with node --cpu-prof and import the .cpuprofile",
		func(c *profread.Content) bool {
			return c.Text && len(c.Lines) > 0 && strings.HasPrefix(c.Lines[0], "v8-version,")
		}},
	{"valgrind massif's heap profile: it measures memory, not time; profile with valgrind --tool=callgrind and import its callgrind.out file",
		func(c *profread.Content) bool {
			return c.Text && len(c.Lines) > 1 && strings.HasPrefix(c.Lines[0], "desc:") && bytes.Contains(c.Data, []byte("\nsnapshot="))
		}},
	{"perf script's output without the fields a sample header needs (-F without comm and tid, or with neither time nor event): run `perf script -F comm,pid,tid,time,event,ip,sym,dso` (or perf script's default fields) and import that",
		func(c *profread.Content) bool {
			for _, l := range c.Lines {
				if perfFrameOnly.MatchString(l) {
					return true
				}
			}
			return false
		}},
	{"perf report's table (percentages per symbol): it has no stacks or samples to replay; import the output of `perf script` instead",
		func(c *profread.Content) bool {
			head := c.Data[:min(len(c.Data), 16384)]
			return c.Text && bytes.Contains(head, []byte("# Overhead")) && bytes.Contains(head, []byte("Symbol"))
		}},
	{"a flame graph drawing (SVG or HTML), not its data: import the folded stacks it was drawn from (flamegraph.pl's input, or the profiler's collapsed output)",
		func(c *profread.Content) bool {
			head := strings.ToLower(string(bytes.TrimSpace(c.Data[:min(len(c.Data), 512)])))
			return c.Text && (strings.HasPrefix(head, "<?xml") || strings.HasPrefix(head, "<svg") || strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html"))
		}},
}

// perfFrameOnly is a frame line of perf script (a tab, a hexadecimal ip
// and a symbol).
var perfFrameOnly = regexp.MustCompile(`^\t\s*[0-9a-f]+ \S`)

// hasPrefix says whether data starts with one of the prefixes.
func hasPrefix(data []byte, prefixes ...string) bool {
	for _, p := range prefixes {
		if bytes.HasPrefix(data, []byte(p)) {
			return true
		}
	}
	return false
}

// otherProfileOf names the kind of file c is, with what to do, when it
// is one of otherProfiles ("" otherwise).
func otherProfileOf(c *profread.Content) string {
	for _, o := range otherProfiles {
		if o.is(c) {
			return o.what
		}
	}
	return ""
}
