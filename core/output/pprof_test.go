package output_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// callWorkload is an image app.exe whose main calls parse, which calls
// lex; main and parse also do work of their own.
func callWorkload(p *kernel.Process) *workload.Spec {
	return &workload.Spec{
		Images: []workload.Image{{Name: "app.exe", Base: 0x10000, Functions: []workload.Function{
			{Name: "main", Offset: 0x000, Size: 0x400, Weight: 2},
			{Name: "parse", Offset: 0x400, Size: 0x400, Weight: 3, Caller: "main"},
			{Name: "lex", Offset: 0x800, Size: 0x400, Weight: 5, Caller: "parse", CacheMissRate: 0.05},
		}}},
		Processes: []workload.Process{{Name: "app", Proc: p}},
	}
}

// profileOf runs w under a profile of src at interval and writes the
// outputs; it returns the pprof file's path.
func profileOf(t *testing.T, src nt.Source, interval uint32, w func(*kernel.Process) *workload.Spec, seed uint64) string {
	t.Helper()
	l := labtest.Inproc(t, 2, seed)
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	l.Profile(t, 0x10000, 0xC00, 6, src)
	l.SetInterval(t, src, interval)
	if _, err := l.Sim.Run(100_000, w(l.P)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := output.Write(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sum.Files {
		if strings.HasSuffix(f, ".pb.gz") {
			return filepath.Join(dir, f)
		}
	}
	t.Fatalf("no profile in %v", sum.Files)
	return ""
}

func readProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

func pprofTool(t *testing.T, args ...string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	out, err := exec.Command(gobin, append([]string{"tool", "pprof"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestPprofUnits(t *testing.T) {
	// ProfileTime at 10000 × 100 ns: each sample is 1 ms
	p := readProfile(t, profileOf(t, nt.ProfileTime, 10000, labtest.ThreeFuncs, 1))
	if p.Period != 1_000_000 || p.PeriodType.Type != "ProfileTime" || p.PeriodType.Unit != "nanoseconds" {
		t.Errorf("period %d %+v", p.Period, p.PeriodType)
	}
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if got := strings.Join(types, " "); got != "samples/count time/nanoseconds truth_time/nanoseconds" || p.DefaultSampleType != "time" {
		t.Errorf("sample types %s, default %s", got, p.DefaultSampleType)
	}
	var n, ns, truth int64
	for _, s := range p.Sample {
		n, ns, truth = n+s.Value[0], ns+s.Value[1], truth+s.Value[2]
		if s.Value[1] != s.Value[0]*p.Period {
			t.Errorf("time %d is not samples %d × period", s.Value[1], s.Value[0])
		}
		if got := strings.Join(s.Label["affinity"], ","); got != "0-1" || len(s.Label["processor"]) != 0 {
			t.Errorf("a bucket sample's affinity %q (one value) and processors %q (none)", got, s.Label["processor"])
		}
		if s.Label["source"][0] != "ProfileTime" || !strings.HasPrefix(s.Label["process"][0], "app (pid ") {
			t.Errorf("labels %v", s.Label)
		}
	}
	// one thread runs 100 ms at 1 ms a sample; the truth is those 100 ms
	if n < 95 || n > 105 || truth < 99_000_000 || truth > 101_000_000 {
		t.Errorf("samples %d (%d ns), truth %d ns", n, ns, truth)
	}
	top := pprofTool(t, "-top", profileOfPath(t, p))
	if !regexp.MustCompile(`Type: time`).MatchString(top) || !regexp.MustCompile(`\d+ms\s+[\d.]+%\s+[\d.]+%\s+\d+ms\s+[\d.]+%\s+alpha`).MatchString(top) {
		t.Errorf("pprof -top does not show milliseconds:\n%s", top)
	}

	// a counter source counts events: one sample every 10000 cache misses
	c := readProfile(t, profileOf(t, nt.ProfileCacheMisses, 10000, labtest.ThreeFuncs, 1))
	if c.Period != 10000 || c.PeriodType.Type != "ProfileCacheMisses" || c.PeriodType.Unit != "events" || c.DefaultSampleType != "events" {
		t.Errorf("counter period %d %+v %s", c.Period, c.PeriodType, c.DefaultSampleType)
	}
	top = pprofTool(t, "-top", profileOfPath(t, c))
	if !strings.Contains(top, "Type: events") || !regexp.MustCompile(`\d+events\s+[\d.]+%.*gamma`).MatchString(top) {
		t.Errorf("pprof -top does not show events:\n%s", top)
	}
}

// profileOfPath writes p to a temporary file, for go tool pprof.
func profileOfPath(t *testing.T, p *profile.Profile) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "*.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

func TestPprofDiffBase(t *testing.T) {
	a := profileOf(t, nt.ProfileTime, 10000, labtest.ThreeFuncs, 1)
	b := profileOf(t, nt.ProfileTime, 10000, labtest.ThreeFuncs, 2)
	out := pprofTool(t, "-top", "-diff_base", a, b)
	if !strings.Contains(out, "alpha") || !strings.Contains(out, "ms") {
		t.Errorf("pprof -diff_base:\n%s", out)
	}
}

func TestPprofMappingsAndStacks(t *testing.T) {
	path := profileOf(t, nt.ProfileTime, 10000, callWorkload, 1)
	p := readProfile(t, path)
	var files []string
	for _, m := range p.Mapping {
		files = append(files, m.File)
	}
	if !strings.Contains(strings.Join(files, ","), "app.exe") {
		t.Errorf("mappings %v", files)
	}
	// flat and cum of the ground truth, by function
	flat, cum := map[string]int64{}, map[string]int64{}
	for _, s := range p.Sample {
		var names []string
		for _, l := range s.Location {
			names = append(names, l.Line[0].Function.Name)
		}
		if names[0] == "lex" && strings.Join(names, "<") != "lex<parse<main" {
			t.Errorf("stack of lex: %v", names)
		}
		flat[names[0]] += s.Value[2]
		for _, n := range names {
			cum[n] += s.Value[2]
		}
	}
	if cum["main"] != flat["main"]+flat["parse"]+flat["lex"] || cum["parse"] != flat["parse"]+flat["lex"] || flat["main"] == cum["main"] {
		t.Errorf("truth flat %v cum %v", flat, cum)
	}
	// go tool pprof shows main's inclusive time: ~100% cum, ~20% flat
	top := pprofTool(t, "-top", "-cum", "-sample_index=truth_time", path)
	re := regexp.MustCompile(`(?m)^\s*\S+\s+([\d.]+)%\s+[\d.]+%\s+\S+\s+([\d.]+)%\s+main$`)
	m := re.FindStringSubmatch(top)
	if m == nil {
		t.Fatalf("no main in pprof -top -cum:\n%s", top)
	}
	fl, _ := strconv.ParseFloat(m[1], 64)
	cu, _ := strconv.ParseFloat(m[2], 64)
	if fl < 15 || fl > 25 || cu < 99 {
		t.Errorf("main flat %v%% cum %v%%, want 20%% and 100%%:\n%s", fl, cu, top)
	}
}

// Two images defining one function name (a PLT stub, the same library
// in two processes) are two mappings, each spanning its own functions;
// a location is in the mapping of its address, and the image the
// profile's range covers comes first (pprof's main binary).
func TestPprofMappingsOfImagesSharingNames(t *testing.T) {
	w := func(p *kernel.Process) *workload.Spec {
		return &workload.Spec{
			Images: []workload.Image{
				{Name: "a.dll", Base: 0x8000, Functions: []workload.Function{
					{Name: "f", Offset: 0, Size: 0x100, Weight: 1},
					{Name: "g", Offset: 0x100, Size: 0x100, Weight: 1},
				}},
				{Name: "b.dll", Base: 0x10000, Functions: []workload.Function{
					{Name: "f", Offset: 0, Size: 0x400, Weight: 3},
					{Name: "h", Offset: 0x400, Size: 0x800, Weight: 3},
				}},
			},
			Processes: []workload.Process{{Name: "app", Proc: p}},
		}
	}
	p := readProfile(t, profileOf(t, nt.ProfileTime, 10000, w, 1))
	spans := map[string][2]uint64{}
	for _, m := range p.Mapping {
		spans[m.File] = [2]uint64{m.Start, m.Limit}
	}
	if spans["a.dll"] != [2]uint64{0x8000, 0x8200} || spans["b.dll"] != [2]uint64{0x10000, 0x10C00} {
		t.Errorf("mappings %v, want a.dll 0x8000-0x8200 and b.dll 0x10000-0x10C00", spans)
	}
	if p.Mapping[0].File != "b.dll" {
		t.Errorf("first mapping %q, want b.dll, the image the profile covers", p.Mapping[0].File)
	}
	n := 0
	for _, s := range p.Sample {
		loc := s.Location[0]
		if loc.Mapping == nil || loc.Address < loc.Mapping.Start || loc.Address >= loc.Mapping.Limit {
			t.Fatalf("location 0x%X (%s) is not in its mapping %+v", loc.Address, loc.Line[0].Function.Name, loc.Mapping)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no samples")
	}
}

func TestSamplesProfilesHaveProcessorsAndThreads(t *testing.T) {
	l := labtest.Inproc(t, 2, 1)
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	l.SetInterval(t, nt.ProfileTime, 10000) // before the logger: no set event
	s, err := l.M.StartKernelLogger(true)
	if err != nil {
		t.Fatal(err)
	}
	reg.AddSession(l.M, s)
	if _, err := l.Sim.Run(50_000, labtest.ThreeFuncs(l.P)); err != nil {
		t.Fatal(err)
	}
	l.SetInterval(t, nt.ProfileTime, 20000) // logged: 1 ms, then 2 ms a sample
	if _, err := l.Sim.Run(50_000, labtest.ThreeFuncs(l.P)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := output.Write(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	const file = "samples-m1-ProfileTime.pb.gz"
	if !strings.Contains(strings.Join(sum.Files, " "), file) {
		t.Fatalf("files %v", sum.Files)
	}
	p := readProfile(t, filepath.Join(dir, file))
	weights := map[int64]int64{}
	threads := map[string]bool{}
	var total int64
	for _, smp := range p.Sample {
		weights[smp.Value[1]/smp.Value[0]] += smp.Value[0]
		total += smp.Value[1]
		for _, k := range []string{"processor", "thread", "process", "context", "source"} {
			if len(smp.Label[k]) != 1 {
				t.Fatalf("sample labels %v lack %s", smp.Label, k)
			}
		}
		if strings.HasPrefix(smp.Label["process"][0], "app (pid ") {
			threads[smp.Label["thread"][0]] = true
		}
	}
	if len(weights) != 2 || weights[1_000_000] == 0 || weights[2_000_000] == 0 {
		t.Errorf("sample weights %v, want 1 ms before the set and 2 ms after", weights)
	}
	// 100 ms on each of 2 processors
	if total < 190_000_000 || total > 210_000_000 {
		t.Errorf("total %d ns", total)
	}
	// the app's samples name the workload's thread(s), by NT thread id
	ids := map[string]bool{}
	for _, th := range l.P.Threads() {
		ids[strconv.FormatUint(uint64(th.ID()), 10)] = true
	}
	if len(threads) == 0 {
		t.Error("no sample of the app")
	}
	for th := range threads {
		if !ids[th] {
			t.Errorf("thread %s is not one of the app's %v", th, ids)
		}
	}
	tags := pprofTool(t, "-tags", filepath.Join(dir, file))
	for _, w := range []string{"processor:", "thread:", "process:", "app (pid "} {
		if !strings.Contains(tags, w) {
			t.Errorf("pprof -tags lacks %q:\n%s", w, tags)
		}
	}
}

// TestPprofFunctionsOfImagesSharingNames: functions of one name in two
// images (main of bash and of readlink, free@plt of two libraries) are
// two pprof Functions, each of its own image, with their own callers;
// they were one, named after the first image (issue 35 §3).
func TestPprofFunctionsOfImagesSharingNames(t *testing.T) {
	w := func(p *kernel.Process) *workload.Spec {
		return &workload.Spec{
			Images: []workload.Image{
				{Name: "a.dll", Base: 0x10000, Functions: []workload.Function{
					{Name: "main", Offset: 0, Size: 0x200, Weight: 1},
					{Name: "f", Offset: 0x200, Size: 0x200, Weight: 2, Caller: "a.dll!main"},
				}},
				{Name: "b.dll", Base: 0x10800, Functions: []workload.Function{
					{Name: "main", Offset: 0, Size: 0x200, Weight: 1},
					{Name: "f", Offset: 0x200, Size: 0x200, Weight: 2, Caller: "b.dll!main"},
				}},
			},
			Processes: []workload.Process{{Name: "app", Proc: p}},
		}
	}
	// the profile's range, 0x10000+0xC00, covers both images
	p := readProfile(t, profileOf(t, nt.ProfileTime, 10000, w, 3))
	files := map[string][]string{} // function name → the images of its Functions
	for _, f := range p.Function {
		files[f.Name] = append(files[f.Name], f.Filename)
	}
	for _, name := range []string{"main", "f"} {
		slices.Sort(files[name])
		if !slices.Equal(files[name], []string{"a.dll", "b.dll"}) {
			t.Errorf("the Functions named %s are of the images %q, want one of a.dll and one of b.dll", name, files[name])
		}
	}
	seen := map[string]bool{}
	for _, s := range p.Sample {
		for i, loc := range s.Location {
			fn := loc.Line[0].Function
			if loc.Mapping == nil || fn.Filename != loc.Mapping.File {
				t.Fatalf("sample frame %d: %s of %s in the mapping %+v, want its image's", i, fn.Name, fn.Filename, loc.Mapping)
			}
			if i > 0 && fn.Filename != s.Location[0].Line[0].Function.Filename {
				t.Errorf("%s of %s is called by %s of %s, want its own image's main", s.Location[0].Line[0].Function.Name, s.Location[0].Line[0].Function.Filename, fn.Name, fn.Filename)
			}
		}
		leaf := s.Location[0].Line[0].Function
		seen[leaf.Filename+"!"+leaf.Name] = true
	}
	if !seen["a.dll!f"] || !seen["b.dll!f"] {
		t.Errorf("samples in %v, want some in each image's f", seen)
	}
}
