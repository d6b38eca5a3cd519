package output_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// loggedLab is an in-process lab of cpus processors with the kernel
// logger started, and a registry of its outputs holding the machine and
// the logger's session; and the session.
func loggedLab(tb testing.TB, cpus int, seed uint64) (*labtest.Lab, *output.Registry, *kernel.TraceSession) {
	tb.Helper()
	l := labtest.Inproc(tb, cpus, seed)
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	s, err := l.M.StartKernelLogger(true)
	if err != nil {
		tb.Fatal(err)
	}
	reg.AddSession(l.M, s)
	return l, reg, s
}

func runLab(t *testing.T, dir string) output.Summary {
	t.Helper()
	l, reg, _ := loggedLab(t, 2, 1)
	l.Profile(t, 0x10000, 0xC00, 8, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 10000)
	if _, err := l.Sim.Run(50_000, labtest.ThreeFuncs(l.P)); err != nil {
		t.Fatal(err)
	}
	sum, err := output.Write(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestWriteOutputs(t *testing.T) {
	dir := t.TempDir()
	sum := runLab(t, dir)
	if len(sum.Machines) != 1 || sum.Machines[0].InterruptsByCPU[0]["ProfileTime"] == 0 {
		t.Fatalf("summary %+v", sum)
	}
	var pb string
	for _, f := range sum.Files {
		if strings.HasSuffix(f, ".pb.gz") {
			pb = f
		}
	}
	if pb == "" || !strings.Contains(strings.Join(sum.Files, " "), output.BucketsFile) || !strings.Contains(strings.Join(sum.Files, " "), output.TraceFile) {
		t.Fatalf("files %v", sum.Files)
	}
	data, err := os.ReadFile(filepath.Join(dir, pb))
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	var total int64
	for _, s := range p.Sample {
		total += s.Value[0]
		names[s.Location[0].Line[0].Function.Name] = true
		if s.Label["source"][0] != "ProfileTime" {
			t.Errorf("label %v", s.Label)
		}
	}
	if !names["alpha"] || !names["beta"] || !names["gamma"] || total == 0 {
		t.Errorf("functions %v, total %d", names, total)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, output.BucketsFile))
	// the bucket size column holds the log2, and says so
	if !bytes.HasPrefix(csv, []byte("machine,owner_pid,handle,profiled_pid,source,base,bucket_log2,bucket,")) || !bytes.Contains(csv, []byte(",alpha,")) {
		t.Errorf("buckets.csv:\n%s", csv)
	}
}

func TestPprofTopListsFunctions(t *testing.T) {
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	dir := t.TempDir()
	sum := runLab(t, dir)
	for _, f := range sum.Files {
		if !strings.HasSuffix(f, ".pb.gz") {
			continue
		}
		out, err := exec.Command(gobin, "tool", "pprof", "-top", filepath.Join(dir, f)).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof: %v\n%s", err, out)
		}
		for _, fn := range []string{"alpha", "beta", "gamma"} {
			if !strings.Contains(string(out), fn) {
				t.Errorf("pprof -top lacks %s:\n%s", fn, out)
			}
		}
	}
}

func TestWriteIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	sa, sb := runLab(t, a), runLab(t, b)
	if strings.Join(sa.Files, ",") != strings.Join(sb.Files, ",") {
		t.Fatal("different files")
	}
	for _, f := range sa.Files {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between identical runs", f)
		}
	}
}

// result.json describes every machine a scenario built: version, build,
// architecture, vendor, processors, clock, PEBS, HALs and seed.
func TestSummaryDescribesTheMachines(t *testing.T) {
	l := labtest.Inproc(t, 2, 42)
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	ms := output.Summarize(reg).Machines
	if len(ms) != 1 {
		t.Fatalf("%d machines", len(ms))
	}
	m := ms[0]
	cfg := l.M.Config()
	if m.Version != cfg.Version.String() || m.Build != cfg.Version.Build || m.Arch != cfg.Arch.String() || m.Vendor != cfg.Vendor ||
		m.CPUs != 2 || m.FreqMHz != cfg.FreqMHz || m.Seed != 42 || len(m.HALs) == 0 || m.HALs[0] != "apic" {
		t.Errorf("machine summary %+v, the machine %+v", m, cfg)
	}
}
