package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// progDwarf is a perf --call-graph dwarf style recording, made by hand
// (scenarios/windows_profile.lua says how), whose first image in address
// order is the loader, ld-linux, with 7.5% of the samples; the program,
// prog, has 82.5%, libc 10%.
const progDwarf = "../../scenarios/workloads/prog_dwarf.txt"

// profileRun is `proflab profile` into a new folder: the exit code, the
// terminal's output and stderr, and the folder.
func profileRun(t *testing.T, args ...string) (int, string, string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errOut := runCLI(append([]string{"profile"}, append(args, "--out", dir)...)...)
	return code, out, errOut, dir
}

// `proflab profile` profiles the program's images, ranked by the source's
// samples (prog before libc before ld-linux, though ld-linux is first in
// address order), compares them with the source in the run folder and
// summarises the comparison: the hottest functions on both sides and
// the verdict in words.
func TestProfileCommand(t *testing.T) {
	code, out, errOut, dir := profileRun(t, progDwarf, "--duration", "2s", "--seed", "3")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"program:  prog 82.5%, libc.so.6 10.0%, ld-linux-x86-64.so.2 7.5% of the source's samples",
		"source:   ProfileTime every 10000 × 100 ns (the HAL's default)",
		"trace:    the NT Kernel Logger's sampled-profile events",
		"ProfileTime, 3 profiles of the program's images",
		"hottest: the same on both sides, compute",
		"verdict: Windows would see the program as the source does: the profiles of all 3 images agree with the source",
		"The comparison in full, per image, module and function: " + filepath.Join(dir, "comparison.txt"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	// the program's functions, hottest first, with both sides' shares
	rows := regexp.MustCompile(`(?m)^  (\w+) +(\S+) +([\d.]+)% +([\d.]+)%$`).FindAllStringSubmatch(out, -1)
	var names []string
	for _, r := range rows {
		names = append(names, r[1]+"@"+r[2]+"="+r[3])
	}
	if got, want := strings.Join(names, " "), "compute@prog=50.00 hash_block@prog=30.00 memcpy@libc.so.6=10.00 _dl_relocate_object@ld-linux-x86-64.so.2=5.00 do_lookup_x@ld-linux-x86-64.so.2=2.50 main@prog=2.50"; got != want {
		t.Errorf("the summary's functions and source shares:\n got %s\nwant %s", got, want)
	}
	// every output of a run: the comparison, the profiles, the logger's
	// samples and trace
	for _, f := range []string{"comparison.txt", "comparison.csv", "accuracy.csv", "buckets.csv", "result.json", "config.toml", "log.txt",
		"samples-m1-ProfileTime.pb.gz", "trace.perfetto-trace", "workload-m1-r1.toml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the run folder lacks %s: %v", f, err)
		}
	}
	var res struct {
		Status   string `json:"status"`
		Accuracy []struct {
			Profile string `json:"profile"`
		} `json:"accuracy"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "passed" || len(res.Accuracy) != 3 {
		t.Errorf("result.json: status %q, %d profiles, want passed and one per image", res.Status, len(res.Accuracy))
	}
	// the program's profile is the one of the prog image: compute is in it
	text, _ := os.ReadFile(filepath.Join(dir, "comparison.txt"))
	if !regexp.MustCompile(`against profile-m1-pid\d+-h4-ProfileTime.pb.gz \(ProfileTime\)\n  samples: 330 of the source's`).Match(text) {
		t.Errorf("the first profile is not the program's image's (330 of the source's samples are prog's):\n%s", text)
	}

	// the same seed, the same bytes
	_, _, _, again := profileRun(t, progDwarf, "--duration", "2s", "--seed", "3")
	text2, _ := os.ReadFile(filepath.Join(again, "comparison.txt"))
	if string(text) != string(text2) {
		t.Error("two runs of one seed wrote different comparisons")
	}
}

// The machine, the source and PEBS are the flags': a counter on Windows
// 7 has no logger events to trace (they arrive in 6.2), and PEBS samples
// the counter precisely, traced as PMC interrupts.
func TestProfileCommandMachines(t *testing.T) {
	for _, tt := range []struct {
		name  string
		args  []string
		want  []string
		trace bool
	}{
		{"a counter on Windows 7", []string{"--version", "6.1", "--source", "TotalIssues", "--interval", "8192"},
			[]string{"on Windows 6.1 x64", "source:   ProfileTotalIssues every 8192 events (--interval)",
				"trace:    no NT Kernel Logger trace: its PMC interrupt events arrive in Windows 8 (6.2); this machine runs 6.1", "ProfileTotalIssues, 3 profiles"}, false},
		{"PEBS on Windows 10", []string{"--pebs"},
			[]string{"source:   ProfileTotalIssues every 65536 events (the HAL's default), precise (PEBS)", "trace:    the NT Kernel Logger's PMC interrupt events"}, true},
		{"the timer on x86 Windows XP", []string{"--version", "5.1", "--arch", "x86", "--interval", "20000"},
			[]string{"on Windows 5.1 x86", "every 20000 × 100 ns (--interval)", "the NT Kernel Logger's sampled-profile events"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut, dir := profileRun(t, append([]string{progDwarf, "--duration", "1s"}, tt.args...)...)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
			_, err := os.Stat(filepath.Join(dir, "trace.perfetto-trace"))
			if (err == nil) != tt.trace {
				t.Errorf("trace.perfetto-trace written: %v, want %v", err == nil, tt.trace)
			}
		})
	}
}

// Bad input is exit 2 with a message that says what to do, and a refused
// run writes nothing: the corrected command can use the same --out.
func TestProfileCommandErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no source", []string{"testdata/none.txt"}, "source profile testdata/none.txt does not exist: check the path"},
		{"two sources", []string{progDwarf, progDwarf}, "profile takes one source profile, got 2 arguments"},
		{"a misspelt source", []string{progDwarf, "--source", "Tmer"}, "--source Tmer: not a profile source (did you mean Timer?); the sources are Timer, AlignmentFixup, TotalIssues"},
		{"an unknown version", []string{progDwarf, "--version", "12"}, `--version 12: unknown Windows version "12": use one of 3.10`},
		{"an unknown architecture", []string{progDwarf, "--arch", "arm"}, `--arch arm: "arm" is not accepted; expected one of "x86", "x64"`},
		{"PEBS on Windows 7", []string{progDwarf, "--pebs", "--version", "6.1"}, "--pebs: PEBS needs the processors' control areas (SystemProcessorProfileControlArea), which arrive in Windows 8 (6.2); this machine runs 6.1"},
		{"PEBS with the timer", []string{progDwarf, "--pebs", "--source", "Timer"}, "--pebs samples a counter precisely, not the timer: give --source TotalIssues"},
		{"a source no HAL has", []string{progDwarf, "--source", "TotalIssues", "--config-set", `machine.hal=["apic"]`}, "--source TotalIssues: this machine's HALs do not have that source (NtQueryIntervalProfile gives 0); they have Time"},
		{"interval 0", []string{progDwarf, "--interval", "0"}, "--interval 0: give the interval to sample at"},
		{"no duration", []string{progDwarf, "--duration", "0s"}, "--duration 0s: give a simulated time above 0 and at most 1h"},
		{"rows", []string{progDwarf, "--rows", "-1"}, "--rows -1: give a number of functions, or 0 for all"},
		{"not a profile", []string{"profile_test.go"}, "workload: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut, dir := profileRun(t, tt.args...)
			if code != ExitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant it to hold %q (stdout:\n%s)", code, ExitUsage, errOut, tt.want, out)
			}
			if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
				t.Errorf("a refused run wrote %d files into --out", len(ents))
			}
		})
	}
	// --out is required
	code, _, errOut := runCLI("profile", progDwarf)
	if code != ExitUsage || !strings.Contains(errOut, "give --out DIR") {
		t.Errorf("without --out: exit %d, %s", code, errOut)
	}
}

// A real Windows trace brings its own ntoskrnl.exe, hundreds of MB above
// the lab's built-in kernel functions: the program's ntoskrnl.exe is
// profiled over its own code, not from the lab's idle loop up through
// every driver between (a 564 MB profile in 256-byte buckets, the idle
// loop "Windows' hottest" at 83%, hal.dll's rows twice).
func TestProfileCommandTraceKernel(t *testing.T) {
	code, out, errOut, _ := profileRun(t, "../../core/etl/testdata/perfview-net.4.5.2.x86.etl.zip", "--duration", "2s", "--seed", "3")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, bad := range []string{"KiIdleLoop", "ntoskrnl.exe is "} {
		if strings.Contains(out, bad) {
			t.Errorf("the output has %q: the lab's built-in kernel is profiled as the program's:\n%s", bad, out)
		}
	}
	rows := regexp.MustCompile(`(?m)^  (\S+) +\S+ +[\d.]+% +[\d.]+%`).FindAllStringSubmatch(out, -1)
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r[1]] {
			t.Errorf("%s is listed twice: two profiles cover it", r[1])
		}
		seen[r[1]] = true
	}
}

// profileWants runs `proflab profile` with args, which must succeed
// with every line of want in its output, and returns the output.
func profileWants(t *testing.T, want []string, args ...string) string {
	t.Helper()
	code, out, errOut, _ := profileRun(t, args...)
	if code != ExitOK {
		t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%v: the output lacks %q:\n%s", args, w, out)
		}
	}
	return out
}

// twoPrograms is `perf script` text of two programs: prog (pid 10) with
// 60 samples in compute (libc's memcpy in 20 of them), other (pid 20)
// with 20 in spin.
func twoPrograms(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < 80; i++ {
		comm, pid, frame := "prog", 10, "1100 compute+0x0 (/usr/bin/prog)"
		switch {
		case i%4 == 3:
			comm, pid, frame = "other", 20, "2200 spin+0x0 (/usr/bin/other)"
		case i%4 == 2:
			frame = "3300 memcpy+0x0 (/usr/lib/libc.so.6)\n\t            1100 compute+0x0 (/usr/bin/prog)"
		}
		fmt.Fprintf(&b, "%s %d   100.%06d:     250000 cpu-clock:pppH:\n\t            %s\n\n", comm, pid, 250*i, frame)
	}
	path := filepath.Join(t.TempDir(), "two.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A source of several processes profiled without --process says so,
// naming the busiest and the --process to add; with --process (and
// --format) the program is that process's images alone.
func TestProfileProcess(t *testing.T) {
	src := twoPrograms(t)
	profileWants(t, []string{
		"program:  prog 50.0%, libc.so.6 25.0%, other 25.0% of the source's samples\n",
		"warning:  the source holds samples of 2 processes, and without --process the program is all of them (its images are every process's); the busiest by samples is prog (75.0% of them): add --process prog to profile that program alone\n",
	}, src, "--duration", "1s")
	out := profileWants(t, []string{
		"process:  prog (--process: the source's samples of the other processes are left out)\n",
		"program:  prog 66.7%, libc.so.6 33.3% of the source's samples\n",
	}, src, "--duration", "1s", "--process", "prog", "--format", "perf")
	if strings.Contains(out, "warning:  the source holds") || strings.Contains(out, "spin") {
		t.Errorf("with --process prog, the other process is still there:\n%s", out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--process", "nobody"}, "--process nobody: no sample of a process of that name; the file has other, prog"},
		{[]string{"--process", ""}, "--process '': give the process's name or pid"},
		{[]string{"--format", "perff"}, `--format: unknown profile format "perff" (did you mean "perf"?)`},
	} {
		code, out, errOut, _ := profileRun(t, append([]string{src, "--duration", "1s"}, tt.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s\n%s", tt.args, code, ExitUsage, tt.want, out, errOut)
		}
	}
}

// kernelFrames is `perf script` text of prog whose samples are half in
// its own compute, half in a function of its own ntoskrnl.exe (a
// source with the kernel's image, as an .etl trace has it).
func kernelFrames(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < 80; i++ {
		frame := "1100 compute+0x0 (/usr/bin/prog)"
		if i%2 == 0 {
			frame = "fffff80021489100 KeWork+0x0 (ntoskrnl.exe)\n\t            " + frame
		}
		fmt.Fprintf(&b, "prog 10   100.%06d:     250000 cpu-clock:pppH:\n\t            %s\n\n", 250*i, frame)
	}
	path := filepath.Join(t.TempDir(), "kern.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The lab's idle loop (and its interrupt and DPC dispatch) sits in the
// built-in ntoskrnl.exe, below a source's own ntoskrnl.exe: the
// program's profile of that image covers the source's kernel functions
// alone, so the lab's idle time is not counted as the program's, as
// the source's idle samples are not.
func TestProfileLeavesIdleOut(t *testing.T) {
	out := profileWants(t, []string{"hottest: the same on both sides, KeWork", "verdict: Windows would see the program as the source does"},
		kernelFrames(t), "--duration", "1s")
	for _, bad := range []string{"KiIdleLoop", "KiInterruptDispatch", "KiRetireDpcList", "buckets are 256 bytes"} {
		if strings.Contains(out, bad) {
			t.Errorf("the output has %q: the lab's built-in kernel functions were profiled as the program's:\n%s", bad, out)
		}
	}
}

// perfviewTrace is PerfView's whole-system trace of Test.x86.exe
// (docs/etl.md): 19 processes, recorded on 8 processors.
const perfviewTrace = "../../core/etl/testdata/perfview-net.4.5.2.x86.etl.zip"

// `proflab profile` of a whole-system .etl trace: without --process it
// says which process to add; with it, the program is that process's
// images, named as one process has them (no "clr.dll#2"), each
// function once, the lab's idle loop not among them, the trace's 8
// processors said, and the differences of clr.dll's address-named
// functions put down to bucket rounding; a symbol listing that names
// them takes that away.
func TestProfileETL(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a 2 MB trace three times")
	}
	profileWants(t, []string{"the busiest by samples is Test.x86.exe (73.3% of them): add --process Test.x86.exe to profile that program alone"},
		perfviewTrace, "--duration", "1s")
	out := profileWants(t, []string{
		"process:  Test.x86.exe (--process: the source's samples of the other processes are left out)\n",
		"program:  [jit] 51.1%, clr.dll 46.7%, clrjit.dll 0.5%, ntoskrnl.exe 0.5%, KernelBase.dll 0.3% and 19 more (0.9%) of the source's samples\n",
		"cpus:     the source was recorded on 8 processors, the lab runs 4 (machine.cpus): add --config-set machine.cpus=8 to run as many\n",
		"hottest: the same on both sides, System.DateTime.GetDatePart\n",
		"likely cause: in clr.dll ",
	}, perfviewTrace, "--duration", "1s", "--process", "Test.x86.exe")
	for _, bad := range []string{"KiIdleLoop", "clr.dll#", "[jit]#", "warning:  the source holds"} {
		if strings.Contains(out, bad) {
			t.Errorf("the output has %q:\n%s", bad, out)
		}
	}
	seen := map[string]bool{}
	for _, r := range regexp.MustCompile(`(?m)^  (\S+) +(\S+) +[\d.]+% +[\d.-]+%?`).FindAllStringSubmatch(out, -1) {
		if seen[r[1]+" "+r[2]] {
			t.Errorf("%s of %s is listed twice:\n%s", r[1], r[2], out)
		}
		seen[r[1]+" "+r[2]] = true
	}
	listing := filepath.Join(t.TempDir(), "clr.symbols")
	if err := os.WriteFile(listing, []byte("clr.dll 0xa500 0x100 ClrDatePart\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = profileWants(t, []string{"\n  ClrDatePart "}, perfviewTrace, "--duration", "1s", "--process", "Test.x86.exe", "--symbols", listing)
	// the listing names 0xa500-0xa600 alone: addresses elsewhere in
	// clr.dll (0x153e8 and 0x153eb share a bucket from the page) may
	// still round
	if strings.Contains(out, "clr.dll+0xa5") || regexp.MustCompile(`likely cause: [^\n]*clr\.dll\+0xa5`).MatchString(out) {
		t.Errorf("a listing naming clr.dll's hot range leaves its addresses:\n%s", out)
	}
}
