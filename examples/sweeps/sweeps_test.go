// Package sweeps_test runs the example sweeps through the proflab
// executable: with -j 1 and -j 2, sharded and merged, as a Slurm job
// array on a real single-node Slurm, and as the Kubernetes Indexed Job's
// pods would run them.
package sweeps_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/proflab/proflab/core/sweep/results"
	"github.com/proflab/proflab/halplugins/haltest"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// proflab builds proflab and the shipped HAL plugins side by side (where
// proflab looks for them first) once per test binary.
func proflab(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds proflab and the plugins")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "proflab-sweeps-bin")
		if buildErr != nil {
			return
		}
		pkgs := []string{"github.com/proflab/proflab/cmd/proflab"}
		for _, h := range []string{"apic", "pmu", "pebs"} {
			pkgs = append(pkgs, "github.com/proflab/proflab/halplugins/"+h+"/cmd/proflab-hal-"+h)
		}
		for _, p := range pkgs {
			if _, buildErr = haltest.Build(binDir, p); buildErr != nil {
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "proflab")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// sweep runs `proflab args...` in dir and fails the test unless it exits
// with one of the codes.
func sweep(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(proflab(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("proflab %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// stripped is a results file without timings.
func stripped(t *testing.T, dir string) string {
	t.Helper()
	lines, torn, err := results.Read(filepath.Join(dir, results.FileName))
	if err != nil || torn || len(lines) == 0 {
		t.Fatalf("%s: %d lines, %v (torn %v)", dir, len(lines), err, torn)
	}
	var b bytes.Buffer
	for _, l := range lines {
		m, _ := l.WithoutTimings().Marshal()
		b.Write(m)
	}
	return b.String()
}

func sameOutputs(t *testing.T, a, b string) {
	t.Helper()
	if stripped(t, a) != stripped(t, b) {
		t.Errorf("results of %s and %s differ (timings aside)", a, b)
	}
	files := []string{"results.csv", "summary.md", "report.html"}
	// the figures in every format (sampling_error writes SVG, PDF and
	// PNG): a PDF's date or a map's order would differ here
	plots, _ := filepath.Glob(filepath.Join(a, "plots", "*"))
	for _, p := range plots {
		files = append(files, filepath.Join("plots", filepath.Base(p)))
	}
	for _, f := range files {
		x, err1 := os.ReadFile(filepath.Join(a, f))
		y, err2 := os.ReadFile(filepath.Join(b, f))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between %s and %s (%v %v)", f, a, b, err1, err2)
		}
	}
}

// The example sweeps give the same results with -j 1 and -j 2, and every
// run ends ok.
func TestExamplesAcrossJobs(t *testing.T) {
	for _, ex := range []string{"sampling_error", "skid_pebs", "inclusive_end"} {
		t.Run(ex, func(t *testing.T) {
			tmp := t.TempDir()
			one, two := filepath.Join(tmp, "j1"), filepath.Join(tmp, "j2")
			out := sweep(t, ".", nil, "sweep", ex+".toml", "-j", "1", "--out", one)
			if !strings.Contains(out, " 0 failed, 0 error") {
				t.Errorf("-j 1: %s", out)
			}
			sweep(t, ".", nil, "sweep", ex+".toml", "-j", "2", "--out", two)
			sameOutputs(t, one, two)
		})
	}
}

// The version matrix finds the inclusive-end defect where the reference
// puts it: no crash on 6.1 and from 1809, crashes from 6.2 to 1803.
func TestInclusiveEndVersionMatrix(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	sweep(t, ".", nil, "sweep", "inclusive_end.toml", "--out", out)
	lines, _, err := results.Read(filepath.Join(out, results.FileName))
	if err != nil {
		t.Fatal(err)
	}
	crashes := map[string]int{}
	for _, l := range lines {
		v := fmt.Sprint(l.Params["version"])
		if fmt.Sprint(l.Metrics["crashed"]) == "1" {
			crashes[v]++
		}
	}
	for v, buggy := range map[string]bool{"6.1": false, "6.2": true, "6.3": true, "10.0.10240": true,
		"10.0.17134": true, "10.0.17763": false, "10.0.19041": false} {
		if (crashes[v] > 0) != buggy {
			t.Errorf("version %s: %d crashes in 20 layouts, want crashes: %v", v, crashes[v], buggy)
		}
	}
}

// Shards 0/3, 1/3, 2/3 merged equal the unsharded sweep.
func TestShardsMerge(t *testing.T) {
	tmp := t.TempDir()
	whole := filepath.Join(tmp, "whole")
	sweep(t, ".", nil, "sweep", "skid_pebs.toml", "--out", whole)
	var dirs []string
	for k := range 3 {
		d := filepath.Join(tmp, fmt.Sprintf("shard-%d", k))
		sweep(t, ".", nil, "sweep", "skid_pebs.toml", "--shard", fmt.Sprintf("%d/3", k), "--out", d)
		dirs = append(dirs, d)
	}
	merged := filepath.Join(tmp, "merged")
	sweep(t, ".", nil, append([]string{"sweep", "merge", merged}, dirs...)...)
	sameOutputs(t, whole, merged)
}

// slurmUp brings up the local single-node Slurm with .ci/slurm-up (or
// finds one up) and returns the client configuration; the daemons it
// started are stopped at the end of the test.
func slurmUp(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the local Slurm runs on Linux")
	}
	for _, b := range []string{"slurmctld", "slurmd", "munged", "sbatch"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("Slurm is not installed (%s not found): apt-get install -y --no-install-recommends slurm-wlm munge, as .ci/run does", b)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("the local Slurm's daemons need root")
	}
	state := t.TempDir()
	env := append(os.Environ(), "PROFLAB_SLURM_DIR="+state)
	up := exec.Command("../../.ci/slurm-up")
	up.Env = env
	out, err := up.CombinedOutput()
	if err != nil {
		t.Fatalf(".ci/slurm-up: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		down := exec.Command("../../.ci/slurm-down")
		down.Env = env
		if out, err := down.CombinedOutput(); err != nil {
			t.Errorf(".ci/slurm-down: %v\n%s", err, out)
		}
	})
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	conf, ok := strings.CutPrefix(lines[len(lines)-1], "SLURM_CONF=")
	if !ok {
		t.Fatalf(".ci/slurm-up did not name the configuration:\n%s", out)
	}
	return conf
}

// The example sweep as a 3-task Slurm job array, then the merge job that
// depends on it, on a real slurmctld and slurmd: every task completes and
// the merged results equal the unsharded sweep's.
func TestSlurmJobArray(t *testing.T) {
	bin := proflab(t)
	conf := slurmUp(t)
	tmp := t.TempDir()
	sweepFile, _ := filepath.Abs("sampling_error.toml")
	script, _ := filepath.Abs("slurm.sbatch")
	env := []string{"SLURM_CONF=" + conf, "PROFLAB=" + bin, "SWEEP=" + sweepFile, "OUT=" + filepath.Join(tmp, "out")}
	submit := func(args ...string) string {
		cmd := exec.Command("sbatch", append([]string{"--parsable", "--chdir=" + tmp}, append(args, script)...)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sbatch %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(strings.Split(string(out), ";")[0])
	}
	array := submit("--array=0-2")
	merge := submit("--dependency=afterok:" + array)

	slurm := func(name string, args ...string) string {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	waitEmpty(t, func() bool { return strings.TrimSpace(slurm("squeue", "-h", "-j", array+","+merge)) == "" })

	states := slurm("scontrol", "show", "job", array, "-o") + slurm("scontrol", "show", "job", merge, "-o")
	tasks := 0
	for _, line := range strings.Split(strings.TrimSpace(states), "\n") {
		if strings.Contains(line, "ArrayTaskId=") {
			tasks++
		}
		if !strings.Contains(line, "JobState=COMPLETED") || !strings.Contains(line, "ExitCode=0:0") {
			logs, _ := filepath.Glob(filepath.Join(tmp, "proflab-sweep-*.out"))
			var text string
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				text += l + ":\n" + string(b)
			}
			t.Fatalf("a job did not complete:\n%s\n%s", line, text)
		}
	}
	if tasks != 3 {
		t.Fatalf("%d array tasks, want 3:\n%s", tasks, states)
	}
	whole := filepath.Join(tmp, "whole")
	sweep(t, ".", nil, "sweep", "sampling_error.toml", "-j", "2", "--out", whole)
	sameOutputs(t, whole, filepath.Join(tmp, "out", "merged"))
}

// k8sObject is the part of a Kubernetes object the test reads.
type k8sObject struct {
	APIVersion string                `yaml:"apiVersion"`
	Kind       string                `yaml:"kind"`
	Metadata   struct{ Name string } `yaml:"metadata"`
	Data       map[string]string     `yaml:"data"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name      string `yaml:"name"`
						ValueFrom struct {
							FieldRef struct {
								FieldPath string `yaml:"fieldPath"`
							} `yaml:"fieldRef"`
						} `yaml:"valueFrom"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name      string `yaml:"name"`
					ConfigMap *struct {
						Name string `yaml:"name"`
					} `yaml:"configMap"`
					PersistentVolumeClaim *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// readK8s decodes every document of a manifest.
func readK8s(t *testing.T, path string) map[string]k8sObject {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]k8sObject{}
	d := yaml.NewDecoder(f)
	for {
		var o k8sObject
		err := d.Decode(&o)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[o.Kind+"/"+o.Metadata.Name] = o
	}
}

// expand does what the kubelet does to a container's args: $(VAR) of a
// variable in the container's environment becomes its value.
func expand(args []string, env map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		for k, v := range env {
			a = strings.ReplaceAll(a, "$("+k+")", v)
		}
		out[i] = a
	}
	return out
}

// The Kubernetes example is the Indexed Job it claims to be, and its
// pods' command lines, run with JOB_COMPLETION_INDEX as the Job
// controller sets it and the ConfigMap and volume mounted as folders,
// followed by the merge Job's, give the unsharded sweep's results.
func TestKubernetesIndexedJob(t *testing.T) {
	objs := readK8s(t, "k8s-indexed-job.yaml")
	job, ok := objs["Job/proflab-sweep"]
	if !ok || job.APIVersion != "batch/v1" {
		t.Fatalf("no batch/v1 Job proflab-sweep in %v", objs)
	}
	if job.Spec.CompletionMode != "Indexed" || job.Spec.Completions != 3 || job.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Fatalf("job spec: completionMode %q, completions %d, restartPolicy %q", job.Spec.CompletionMode, job.Spec.Completions, job.Spec.Template.Spec.RestartPolicy)
	}
	c := job.Spec.Template.Spec.Containers[0]
	if len(c.Env) != 1 || c.Env[0].Name != "JOB_COMPLETION_INDEX" ||
		c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("the container's JOB_COMPLETION_INDEX is not the controller's annotation: %+v", c.Env)
	}
	if got := strings.Join(c.Command, " ") + " " + strings.Join(c.Args, " "); !strings.Contains(got, fmt.Sprintf("--shard auto/%d", job.Spec.Completions)) {
		t.Errorf("the pods run %q: want --shard auto/%d (completions)", got, job.Spec.Completions)
	}
	cm, ok := objs["ConfigMap/proflab-sweep"]
	if !ok || cm.APIVersion != "v1" {
		t.Fatal("no v1 ConfigMap proflab-sweep")
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	for _, v := range job.Spec.Template.Spec.Volumes {
		switch {
		case v.ConfigMap != nil && v.ConfigMap.Name != "proflab-sweep":
			t.Errorf("volume %s mounts ConfigMap %s", v.Name, v.ConfigMap.Name)
		case v.PersistentVolumeClaim != nil && objs["PersistentVolumeClaim/"+v.PersistentVolumeClaim.ClaimName].Kind == "":
			t.Errorf("volume %s claims %s, which the manifest does not define", v.Name, v.PersistentVolumeClaim.ClaimName)
		}
	}
	// the ConfigMap carries the example's files unchanged
	for name, text := range cm.Data {
		b, err := os.ReadFile(name)
		if err != nil || string(b) != text {
			t.Errorf("ConfigMap file %s differs from examples/sweeps/%s (%v)", name, name, err)
		}
	}

	// run the pods: the mount paths become folders of the test
	tmp := t.TempDir()
	root := func(p string) string {
		for name, mp := range mounts {
			if rest, ok := strings.CutPrefix(p, mp); ok {
				return filepath.Join(tmp, name) + rest
			}
		}
		return p
	}
	os.MkdirAll(filepath.Join(tmp, "sweep"), 0o755)
	os.MkdirAll(filepath.Join(tmp, "results"), 0o755)
	for name, text := range cm.Data {
		os.WriteFile(filepath.Join(tmp, "sweep", name), []byte(text), 0o644)
	}
	for k := range job.Spec.Completions {
		index := fmt.Sprint(k)
		args := expand(c.Args, map[string]string{"JOB_COMPLETION_INDEX": index})
		for i := range args {
			args[i] = root(args[i])
		}
		out := sweep(t, tmp, []string{"JOB_COMPLETION_INDEX=" + index, "SLURM_ARRAY_TASK_ID="}, args...)
		if !strings.Contains(out, "index from JOB_COMPLETION_INDEX") {
			t.Errorf("pod %d did not take its shard from JOB_COMPLETION_INDEX:\n%s", k, out)
		}
	}
	merge := readK8s(t, "k8s-merge-job.yaml")["Job/proflab-sweep-merge"]
	if merge.APIVersion != "batch/v1" || len(merge.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("k8s-merge-job.yaml: no batch/v1 Job proflab-sweep-merge")
	}
	margs := merge.Spec.Template.Spec.Containers[0].Args
	for i := range margs {
		margs[i] = root(margs[i])
	}
	sweep(t, tmp, nil, margs...)
	whole := filepath.Join(tmp, "whole")
	sweep(t, ".", nil, "sweep", "sampling_error.toml", "--out", whole)
	sameOutputs(t, whole, filepath.Join(tmp, "results", "merged"))
}
