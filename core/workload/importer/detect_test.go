package importer_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

func TestDetect(t *testing.T) {
	t.Parallel()
	synth := importtest.Synthetic(20, 50, 1)
	for _, c := range []struct {
		name string
		data []byte
		want importer.Format
		err  string
	}{
		{"gzipped proto", synth, importer.Pprof, ""},
		{"plain proto", importtest.Gunzip(t, synth), importer.Pprof, ""},
		{"legacy CPU profile", importtest.LegacyExample(), importer.Pprof, ""},
		{"Go profile", readTestdata(t, "goprog.pb.gz"), importer.Pprof, ""},
		{"perf -g", readTestdata(t, "perf_g.txt"), importer.Perf, ""},
		{"perf without -g", readTestdata(t, "perf_nog.txt"), importer.Perf, ""},
		{"perf with --header comments", append([]byte("# ========\n# captured on    : Tue Nov 24 10:00:00 2026\n# ========\n#\n"), readTestdata(t, "perf_nog.txt")...), importer.Perf, ""},
		{"perf header without period, tid or cpu", []byte("prog  1234 12345.678901: cycles: \n\t 401000 main+0x10 (/bin/prog)\n"), importer.Perf, ""},
		{"folded", readTestdata(t, "folded.txt"), importer.Folded, ""},
		{"gzipped folded", importtest.Gzip(t, readTestdata(t, "folded.txt")), importer.Folded, ""},
		{"folded with a fractional count", []byte("a;b 1.5\n"), importer.Folded, ""},
		{"instruments deep copy", readTestdata(t, "instruments_time.txt"), importer.Instruments, ""},
		{"instruments deep copy, Xcode 7", readTestdata(t, "instruments_xcode7.txt"), importer.Instruments, ""},
		{"instruments deep copy, Xcode 16", []byte("Weight\tSelf Weight\tSymbol Names\n1.00 s  100.0%\t1.00 s\t   main\n"), importer.Instruments, ""},
		{"callgrind", readTestdata(t, "callgrind_prog.out.gz"), importer.Callgrind, ""},
		{"callgrind without its format line", []byte("version: 1\ncreator: callgrind-3.19.0\npid: 1\ncmd: ./a\n\npositions: line\nevents: Ir\nfn=main\n1 2\n"), importer.Callgrind, ""},
		{"cachegrind", []byte("desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: ./a\nevents: Ir I1mr ILmr\nfl=a.c\nfn=main\n3 4 0 0\n"), importer.Callgrind, ""},
		{"ghc .prof", readTestdata(t, "ghc_p.prof"), importer.GHCProf, ""},
		{"ghc .prof, GHC 7", readTestdata(t, "ghc7.prof"), importer.GHCProf, ""},
		{"ghc JSON .prof (+RTS -pj)", readTestdata(t, "ghc_pj.prof"), importer.GHCProf, ""},
		{"pmcstat -G", readTestdata(t, "pmcstat.txt"), importer.Pmcstat, ""},
		{"dtrace ustack()", readTestdata(t, "dtrace_ustack.txt"), importer.DTrace, ""},
		{"dtrace keys", readTestdata(t, "dtrace_keys.txt"), importer.DTrace, ""},
		{"dtrace stack() and ustack()", readTestdata(t, "dtrace_kernel.txt"), importer.DTrace, ""},
		{"folded of dtrace frames", []byte("demo`main;demo`parse 4\n"), importer.Folded, ""},
		{"perf frames with backticks", []byte("prog 1234/1235 [002] 12345.678901: 250000 cycles: \n\t 401000 a`b+0x10 (/bin/prog)\n"), importer.Perf, ""},
		{"cpuprofile", readTestdata(t, "node_cpu.cpuprofile"), importer.CPUProfile, ""},
		{"old cpuprofile", readTestdata(t, "v8_old.cpuprofile"), importer.CPUProfile, ""},
		{"gzipped cpuprofile", importtest.Gzip(t, readTestdata(t, "v8_small.cpuprofile")), importer.CPUProfile, ""},
		{"cpuprofile with a byte order mark", append([]byte("\xef\xbb\xbf"), readTestdata(t, "v8_small.cpuprofile")...), importer.CPUProfile, ""},
		{"chrome trace, array", readTestdata(t, "chrome_trace_small.json"), importer.ChromeTrace, ""},
		{"chrome trace, traceEvents", readTestdata(t, "node_trace.json"), importer.ChromeTrace, ""},
		{"chrome trace, CpuProfile event", readTestdata(t, "chrome_trace_cpuprofile_event.json"), importer.ChromeTrace, ""},
		{"speedscope", readTestdata(t, "speedscope_small.json"), importer.Speedscope, ""},
		{"gecko", readTestdata(t, "gecko_small.json"), importer.Gecko, ""},
		{"gecko, gzipped real", readTestdata(t, "firefox_gecko.json.gz"), importer.Gecko, ""},
		{"firefox processed", readTestdata(t, "gecko_processed.json"), importer.Gecko, ""},
		{"firefox processed, shared tables", readTestdata(t, "gecko_processed_v63.json"), importer.Gecko, ""},
		{"firefox devtools export", []byte(`{"profile":{"meta":{"interval":1},"threads":[]},"duration":5,"systemHost":{"name":"Firefox"}}`), importer.Gecko, ""},
		{"stackprof", readTestdata(t, "stackprof_cpu.json"), importer.Stackprof, ""},
		{"stackprof without raw", readTestdata(t, "stackprof_noraw.json"), importer.Stackprof, ""},
		{"a trace of duration events", []byte(`[{"pid":1,"tid":1,"ts":0,"ph":"X","dur":5,"name":"RunTask"}]`), importer.ChromeTrace, ""},
		{"a trace of instant events", []byte(`[{"pid":1,"tid":1,"ts":0,"ph":"i","name":"mark"}]`), "", "Chrome trace without a CPU profile"},
		{"perf.data", []byte("PERFILE2\x68\x00\x00\x00"), "", "perf script -i perf.data"},
		{"a V8 heap profile", []byte(`{"head":{"callFrame":{"functionName":"(root)"},"selfSize":0,"id":1,"children":[]},"samples":[{"size":16,"nodeId":1,"ordinal":1}]}`), "", "V8 heap profile"},
		{"a Safari recording", []byte(`{"version":1,"recording":{"displayName":"Recording 1","sampleStackTraces":[]}}`), "", "Safari Web Inspector"},
		{"V8's --prof log", []byte("v8-version,6,8,275,32,-node.44,0\ntick,0x1,1234,0,0x0,6\n"), "", "node --cpu-prof"},
		{"massif", []byte("desc: (none)\ncmd: ./a\ntime_unit: i\n#-----------\nsnapshot=0\n"), "", "massif"},
		{"a flame graph SVG", []byte("<?xml version=\"1.0\"?>\n<svg></svg>\n"), "", "flame graph drawing"},
		{"perf script -F comm,pid,tid,ip,sym", []byte("p 21312/21312 \n\t          108a40 __init_misc\n\n"), "", "perf script's output without"},
		{"perf script -F ip,sym", []byte("\t          108a40 __init_misc\n\n\t          108a41 __init_misc\n"), "", "perf script's output without"},
		{"perf's flame graph JSON", []byte(`{"n": "all", "l": "root", "v": 0, "c": [{"n": "p (21312)", "l": "", "v": 3, "c": []}]}`), "", "d3-flame-graph"},
		{"perf report", []byte("# Samples: 10  of event 'cpu-clock'\n# Overhead  Command  Shared Object  Symbol\n    50.00%  a  a  [.] main\n"), "", "perf report's table"},
		{"a JFR recording", []byte("FLR\x00\x00\x02\x00\x01"), "", "Java Flight Recorder"},
		{"JSON of no format", []byte(`{"name":"x","values":[1,2,3]}`), "", "--format"},
		{"truncated JSON of no format", []byte(`{"nodes":[{"id":1,`), "", "--format"},
		{"JSON array of numbers", []byte("[1, 2, 3]\n"), "", "--format"},
		{"folded stacks starting with a bracket", []byte("[unknown];main 3\n[unknown];work 5\n"), importer.Folded, ""},
		{"empty", nil, "", "empty"},
		{"garbage", []byte("hello, world\nthis is not a profile\n"), "", "--format"},
		{"binary garbage", []byte{0, 1, 2, 3, 0xff, 0xfe, 9, 9, 9}, "", "--format"},
		{"truncated gzip", synth[:len(synth)/2], "", "truncated"},
	} {
		f, err := importer.Detect(c.data)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: Detect = %q, %v; want an error with %q", c.name, f, err, c.err)
			}
			continue
		}
		if err != nil || f != c.want {
			t.Errorf("%s: Detect = %q, %v; want %s", c.name, f, err, c.want)
		}
	}
}

// TestHostileInput: bad input is an error naming the file (and the line
// of a text format) and saying what is wrong; never a panic, never a
// workload built from half a file.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	synth := importtest.Synthetic(20, 50, 1)
	for _, c := range []struct {
		name   string
		data   string
		format importer.Format
		want   []string
	}{
		{"truncated gzip", string(synth[:len(synth)-10]), "", []string{"in.prof:", "truncated"}},
		{"garbage as pprof", "not a profile at all", importer.Pprof, []string{"in.prof:", "--format"}},
		{"perf header without frames", "prog 1234/1234 [000] 1.000000: 250000 cycles: \n\nprog 1234/1234 [000] 1.000250: 250000 cycles: \n", "", []string{"in.prof:1:", "no instruction pointer"}},
		{"perf garbage line", "prog 1234 [000] 1.0: cycles: \n\t401000 main (/bin/prog)\nwhat is this\n", importer.Perf, []string{"in.prof:3:", "not a sample header"}},
		{"perf bad ip", "prog 1234 [000] 1.0: cycles: \n\t401000 main (/bin/prog)\nprog 1234 [000] 1.0: 1 cycles: 123456789abcdef0123 x (/bin/prog)\n", importer.Perf, []string{"in.prof:3:", "ip"}},
		{"perf huge period", "prog 1234 [000] 1.0: 99999999999999999999 cycles: 401000 main (/bin/prog)\n", importer.Perf, []string{"in.prof:1:", "period"}},
		{"perf without samples", "# only comments\n", importer.Perf, []string{"in.prof:", "no sample header"}},
		{"folded negative count", "# counts\na;c -2\n", importer.Folded, []string{"in.prof:2:", "negative"}},
		{"folded huge count", "a;c 99999999999999999999\n", importer.Folded, []string{"in.prof:1:", "too large"}},
		{"folded counts adding past 2^53", "a;b 9007199254740000\na;c 9007199254740000\n", importer.Folded, []string{"in.prof:", "2^53"}},
		{"folded NaN", "a;b NaN\n", importer.Folded, []string{"in.prof:1:", "not a number"}},
		{"folded no count", "a;b;c\n", importer.Folded, []string{"in.prof:1:", "no count"}},
		{"folded empty frames only", ";; 4\n", importer.Folded, []string{"in.prof:1:", "no frames"}},
		{"folded all zero", "a;b 0\n", importer.Folded, []string{"in.prof:", "nothing to import"}},
		{"unknown arch", "a;b 1\n", "", []string{"in.prof:", "x86 or x64"}},
	} {
		opt := importer.Options{Format: c.format}
		if c.name == "unknown arch" {
			opt.Arch = "arm64"
		}
		im, err := importer.Import("in.prof", []byte(c.data), opt)
		if err == nil {
			t.Errorf("%s: imported %v, want an error", c.name, im.Summary())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"pprof", "perf", "Folded", ""} {
		if _, err := importer.ParseFormat(s); err != nil {
			t.Errorf("ParseFormat(%q): %v", s, err)
		}
	}
	_, err := importer.ParseFormat("jsn")
	if err == nil {
		t.Fatal("ParseFormat(jsn) = nil error, want one listing the formats")
	}
	for _, f := range importer.Formats() {
		if !strings.Contains(err.Error(), string(f.Name)) {
			t.Errorf("ParseFormat(jsn) = %v, does not list %s", err, f.Name)
		}
	}
	for typo, want := range map[string]string{"perff": `(did you mean "perf"?)`, "speedscop": `(did you mean "speedscope"?)`, "xyzzy": ""} {
		_, err := importer.ParseFormat(typo)
		if err == nil || want != "" && !strings.Contains(err.Error(), want) || want == "" && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("ParseFormat(%q) = %v, want an error with %q", typo, err, want)
		}
	}
}

// Every format of the registry has a distinct name, says what it is, and
// is taken by ParseFormat and --format.
func TestFormatsRegistry(t *testing.T) {
	t.Parallel()
	seen := map[importer.Format]bool{}
	for _, f := range importer.Formats() {
		if f.Name == "" || f.About == "" || seen[f.Name] {
			t.Errorf("format %+v: want a unique name and a description", f)
		}
		seen[f.Name] = true
		if got, err := importer.ParseFormat(strings.ToUpper(string(f.Name))); err != nil || got != f.Name {
			t.Errorf("ParseFormat(%s) = %q, %v", f.Name, got, err)
		}
	}
	// every Format constant names a format of the registry (the formats'
	// entries spell their names themselves)
	consts := []importer.Format{importer.Pprof, importer.Perf, importer.Folded,
		importer.CPUProfile, importer.ChromeTrace, importer.Speedscope, importer.Gecko, importer.Stackprof,
		importer.Instruments, importer.Callgrind, importer.GHCProf, importer.Pmcstat, importer.DTrace, importer.ETL}
	for _, want := range consts {
		if !seen[want] {
			t.Errorf("Formats() lacks %s", want)
		}
	}
	if len(consts) != len(seen) {
		t.Errorf("%d Format constants for %d formats: give each format its constant", len(consts), len(seen))
	}
}
