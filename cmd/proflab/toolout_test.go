package main

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// kernrate --out keeps the run folder as proflab run --out does: its
// profiles' buckets (buckets.csv, which add up to the hits kernrate
// printed), accuracy.csv, a pprof file per profile that counted, the
// resolved workload, the configuration, and result.json with the
// workload among its inputs.
func TestKernrateOutKeepsTheProfiles(t *testing.T) {
	wl, err := filepath.Abs("../../examples/workloads/server.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errOut := runCLI("kernrate", "--workload", wl, "--out", dir, "-s", "1", "-z", "server.exe", "-a")
	if code != ExitOK {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	ents, _ := os.ReadDir(dir)
	var files, pprofs []string
	for _, e := range ents {
		files = append(files, e.Name())
		if strings.HasSuffix(e.Name(), ".pb.gz") {
			pprofs = append(pprofs, e.Name())
		}
	}
	for _, f := range []string{"result.json", "log.txt", "config.toml", "workload-m1-r1.toml", "buckets.csv", "accuracy.csv"} {
		if !slices.Contains(files, f) {
			t.Errorf("the folder lacks %s: %v", f, files)
		}
	}
	// the kernel's three modules and server.exe's one (-a) counted
	if len(pprofs) < 3 {
		t.Errorf("pprof files %v, want one per profile that counted", pprofs)
	}
	var samples int64
	for _, f := range pprofs {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		p, err := profile.ParseData(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if p.SampleType[0].Type != "samples" {
			t.Fatalf("%s: sample types %v", f, p.SampleType)
		}
		for _, s := range p.Sample {
			samples += s.Value[0]
		}
	}
	// buckets.csv's counts are the hits the log printed, section by section
	printed := 0
	for _, m := range regexp.MustCompile(`(?m)^Time +(\d+) hits, \d+ events per hit`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		printed += n
	}
	f, err := os.Open(filepath.Join(dir, "buckets.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 || rows[0][10] != "count" {
		t.Fatalf("buckets.csv: %v %v", err, rows[:min(len(rows), 2)])
	}
	counted := 0
	for _, r := range rows[1:] {
		n, _ := strconv.Atoi(r[10])
		counted += n
	}
	if printed == 0 || counted != printed || samples != int64(printed) {
		t.Errorf("buckets.csv counts %d hits and the pprof files %d samples, kernrate printed %d", counted, samples, printed)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
	var res struct {
		Files  []string
		Inputs map[string]string
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range files {
		if f != "result.json" && f != "log.txt" {
			want = append(want, f)
		}
	}
	if got := slices.Sorted(slices.Values(res.Files)); !slices.Equal(got, want) {
		t.Errorf("result.json's files %v, the folder's %v", got, want)
	}
	src, _ := os.ReadFile(wl)
	sum := sha256.Sum256(src)
	if res.Inputs[wl] != hex.EncodeToString(sum[:]) || len(res.Inputs) != 1 {
		t.Errorf("result.json's inputs %v, want the workload %s with its sha256", res.Inputs, wl)
	}
}

// wpr and tracelog make no profile and run no workload: their --out
// folder is result.json, log.txt (what they printed) and config.toml,
// and result.json says so.
func TestWprAndTracelogOut(t *testing.T) {
	for _, args := range [][]string{
		{"wpr", "-profint"},
		{"wpr", "-pmcsources"},
		{"tracelog", "-profilesources", "Help"},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		code, out, errOut := runCLI(append(args, "--out", dir)...)
		if code != ExitOK {
			t.Fatalf("%v: code %d, stderr %s", args, code, errOut)
		}
		ents, _ := os.ReadDir(dir)
		var files []string
		for _, e := range ents {
			files = append(files, e.Name())
		}
		if want := []string{"config.toml", "log.txt", "result.json"}; !slices.Equal(files, want) {
			t.Errorf("%v: the folder holds %v, want %v", args, files, want)
		}
		if log, _ := os.ReadFile(filepath.Join(dir, "log.txt")); string(log) != out || out == "" {
			t.Errorf("%v: log.txt %q, printed %q", args, log, out)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
		var res struct {
			Files    []string
			Params   map[string]any
			Machines []any
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Files, []string{"config.toml"}) || res.Params["tool"] != args[0] || len(res.Machines) != 1 {
			t.Errorf("%v: result.json:\n%s", args, b)
		}
	}
}
