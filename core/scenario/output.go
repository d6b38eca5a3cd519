package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/proflab/proflab/core/compare"
	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/workload"
)

// ResultFile, LogFile and ConfigFile are the names of a run's output files.
const (
	ResultFile = "result.json"
	LogFile    = "log.txt"
	ConfigFile = "config.toml"
)

// OutputFiles describes every file a run's output folder may hold, for
// `proflab run -h`.
const OutputFiles = `  result.json            scenario, status, seed, params, records, checks, error, interrupts per
                         source and processor (and each processor's KPRCB InterruptCount),
                         proflab version, HAL plugins (path, sha256, protocol), inputs (the
                         modules and workload files read, with their sha256), files, timings
  log.txt                the run's log (print, lab.log, plugin log lines), when it logged anything
  config.toml            the configuration in force, every default filled in (HAL settings too)
  workload-mM-rN.toml    the resolved workload of machine M's run N, every default filled in
  buckets.csv            every profile's non-empty buckets: counts and ground truth
  profile-mM-pidP-hH-SOURCE.pb.gz  a pprof profile per profile (output.pprof; go tool pprof -top FILE)
  samples-mM-SOURCE.pb.gz   the kernel logger's samples of a source, by processor, process and
                            thread (output.pprof; go tool pprof -tags FILE)
  accuracy.csv           each profile against the ground truth, per function: shares, intervals,
                         the calibrated test (beyond sampling error at p < 0.001, or no samples)
  comparison.txt         when the run imported a profile as its workload: the lab's profiles
  comparison.csv         against the source's, per function and module, with both samples' errors
  trace.perfetto-trace   a Perfetto trace when a kernel logger ran (output.trace): a track per
                         processor with thread-run slices and the logger's events, NT processes
                         and threads by id and name`

// ErrOutNotEmpty is returned for an output folder that holds files when
// replacing it was not asked for.
var ErrOutNotEmpty = errors.New("the folder is not empty")

// CheckOut reports whether dir can receive a run's outputs: it must not be
// a file, and a folder must be empty unless replace is set. Commands call
// it before the run, so that a wrong --out fails at once.
func CheckOut(dir string, replace bool) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		parent := filepath.Dir(filepath.Clean(dir))
		if pi, err := os.Stat(parent); err == nil && !pi.IsDir() {
			return fmt.Errorf("%s is a file, not a folder", parent)
		}
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is a file: give a folder (new or empty) for the run's outputs", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(ents) > 0 && !replace {
		return fmt.Errorf("%w (%d entries): give a new or empty folder, or --force to replace its contents", ErrOutNotEmpty, len(ents))
	}
	return nil
}

// WriteResult writes the run's output folder dir, which must be new or
// empty (see WriteResultReplace). Every file is written into a fresh
// temporary folder beside dir, which is then renamed to dir, so that dir
// never holds a partial or mixed set of files. The files: result.json
// (scenario, status, seed, params, records, checks, error, the machines'
// interrupts per source and processor, the proflab version and HAL
// plugins, the files the run read (inputs), the files written, and
// timings, the only wall-clock field),
// log.txt when the run logged anything, the configuration in force
// (config.toml), each run's resolved workload (workload-mM-rN.toml), and
// the profile outputs of core/output (buckets.csv, a pprof profile per
// profile and the Perfetto trace when a kernel logger ran, as [output] chooses).
func WriteResult(dir string, r Result) error {
	_, err := WriteResultWith(dir, r, WriteOptions{})
	return err
}

// WriteResultReplace is WriteResult that replaces a folder's contents.
func WriteResultReplace(dir string, r Result) error {
	_, err := WriteResultWith(dir, r, WriteOptions{Replace: true})
	return err
}

// WriteOptions tune WriteResultWith.
type WriteOptions struct {
	// Replace replaces a folder's contents (WriteResultReplace).
	Replace bool
	// MaxTrace bounds the Perfetto trace's size in bytes (0:
	// output.DefaultMaxTrace; negative: no bound).
	MaxTrace int64
}

// WriteResultWith is WriteResult with options; it returns the warnings
// the outputs gave (a trace cut at its size limit), which result.json
// records too.
func WriteResultWith(dir string, r Result, o WriteOptions) ([]string, error) {
	if err := CheckOut(dir, o.Replace); err != nil {
		return nil, err
	}
	return writeResult(dir, r, o)
}

// OutputBudgetError is WriteResult's error when writing a run's outputs
// went past the run's time or memory budget (writing the outputs is part
// of the run): nothing was written, the temporary folder is gone, and
// the message says what to do. A command makes it the run's error: the
// run failed (exit status 1).
type OutputBudgetError struct {
	// Kind is runerr.KindTimeout or runerr.KindMemory.
	Kind    runerr.Kind
	Message string
}

func (e *OutputBudgetError) Error() string { return e.Message }

// watchMemory puts the writing under the memory watchdog (a variable
// for the tests).
var watchMemory = luavm.WatchMemory

// errOutputTime is the cause of the writing's context when its time
// budget runs out.
var errOutputTime = errors.New("the outputs' time budget exceeded")

// exceeded is the error of writing outputs whose context ctx ended.
func (b budget) exceeded(ctx context.Context) *OutputBudgetError {
	smaller := "or write less: output.pprof = false, fewer or smaller profiles (a larger bucket, a smaller range), output.trace = false or a lower --max-trace"
	var m *luavm.MemoryBudgetError
	if errors.As(context.Cause(ctx), &m) {
		return &OutputBudgetError{Kind: runerr.KindMemory, Message: fmt.Sprintf("writing the run's outputs exceeded its memory budget of %s (--memory; the heap reached %s), and nothing was written: raise --memory (0: none), %s",
			luavm.FormatBytes(m.Limit), luavm.FormatBytes(m.Heap), smaller)}
	}
	return &OutputBudgetError{Kind: runerr.KindTimeout, Message: fmt.Sprintf("writing the run's outputs took longer than its time budget of %s (--timeout, counted again from the end of the run), and nothing was written: raise --timeout (0: none), %s",
		formatDuration(b.timeout), smaller)}
}

func writeResult(dir string, r Result, o WriteOptions) (warnings []string, err error) {
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the output folder: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("cannot create the output folder: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; cleans up after a failure
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	// Writing has the run's budgets: its time budget again, counted from
	// now (a run that timed out still writes what it did), and its
	// memory budget, under the watchdog of the runs in progress.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	if r.budget.timeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, r.budget.timeout, errOutputTime)
		defer stop()
	}
	defer watchMemory(r.budget.memory, cancel)()
	if warnings, err = writeFiles(ctx, tmp, r, o); err != nil {
		if ctx.Err() != nil {
			return nil, r.budget.exceeded(ctx)
		}
		return nil, err
	}
	if _, err := os.Stat(dir); err == nil {
		// an empty folder, or one to replace: move it aside, then away
		old := tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return nil, fmt.Errorf("cannot replace %s: %w", dir, err)
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("cannot move the outputs into %s: %w", dir, err)
	}
	return warnings, nil
}

func writeFiles(ctx context.Context, dir string, r Result, o WriteOptions) (warnings []string, err error) {
	cfg := r.Config
	if cfg == nil {
		cfg = config.Default()
	}
	var cb bytes.Buffer
	cb.WriteString(machinesNote(cfg, r))
	if err := toml.NewEncoder(&cb).Encode(cfg); err != nil {
		return nil, fmt.Errorf("cannot encode the configuration: %w", err)
	}
	files := []string{ConfigFile}
	if err := writeFile(ctx, filepath.Join(dir, ConfigFile), cb.Bytes()); err != nil {
		return nil, fmt.Errorf("cannot write the configuration: %w", err)
	}
	if r.Outputs != nil {
		for _, m := range r.Outputs.Machines() {
			if m.Sim == nil {
				continue
			}
			for i, res := range m.Sim.Results() {
				name := fmt.Sprintf("workload-m%d-r%d.toml", m.Index, i+1)
				if err := writeWorkload(ctx, filepath.Join(dir, name), &res.Workload.Spec); err != nil {
					return nil, fmt.Errorf("cannot write %s: %w", name, err)
				}
				files = append(files, name)
			}
		}
		sum, err := output.WriteContext(ctx, dir, r.Outputs, output.Options{Pprof: cfg.Output.Pprof, Trace: cfg.Output.Trace, ETL: cfg.Output.ETL, MaxTrace: o.MaxTrace})
		if err != nil {
			return nil, err
		}
		files = append(files, sum.Files...)
		if len(r.Imports) > 0 {
			// the lab's profiles against the profiles the run imported
			srcs, why := compare.Replays(r.Imports)
			for _, err := range why {
				sum.Warnings = append(sum.Warnings, "no comparison with the source: "+err.Error())
			}
			written, err := compare.WriteFiles(dir, compare.All(srcs, sum.Accuracy))
			if err != nil {
				return nil, err
			}
			files = append(files, written...)
		}
		warnings = sum.Warnings
		r.Accuracy = sum.Accuracy
		r.Summary = nil
		for _, a := range sum.Accuracy {
			r.Summary = append(r.Summary, a.Profile+": "+a.Verdict)
		}
	}
	r.Warnings = append(r.Warnings, warnings...)
	r.Files = files
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("cannot encode the result: %w", err)
	}
	if err := writeFile(ctx, filepath.Join(dir, ResultFile), append(b, '\n')); err != nil {
		return nil, fmt.Errorf("cannot write the result: %w", err)
	}
	if r.Log != "" {
		if err := writeFile(ctx, filepath.Join(dir, LogFile), []byte(r.Log)); err != nil {
			return nil, fmt.Errorf("cannot write the log: %w", err)
		}
	}
	return warnings, nil
}

// writeFile writes data to path, unless ctx has ended.
func writeFile(ctx context.Context, path string, data []byte) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return os.WriteFile(path, data, 0o644)
}

// writeWorkload streams a resolved workload's TOML to path (an imported
// workload's can be hundreds of MiB), stopping when ctx ends.
func writeWorkload(ctx context.Context, path string, s *workload.Spec) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	werr := workload.WriteTOML(output.ContextWriter{Ctx: ctx, W: f}, s)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// ResolveOut follows dir while it is a symbolic link, a dangling one
// included, and returns where it leads, so that outputs are written where
// the link points (renaming a finished folder over the link would replace
// the link instead). A dir that is no link is returned as it is.
func ResolveOut(dir string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(dir)
		if errors.Is(err, os.ErrNotExist) || (err == nil && fi.Mode()&os.ModeSymlink == 0) {
			return dir, nil
		}
		if err != nil {
			return "", err
		}
		target, err := os.Readlink(dir)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(dir), target)
		}
		dir = target
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", dir)
}

// CheckWritable creates and removes a file in dir (or, for a folder still
// to be made, in the nearest folder above it that exists), so that an
// output folder nobody may write into fails before the run, not after it.
func CheckWritable(dir string) error {
	for {
		fi, err := os.Stat(dir)
		if err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(filepath.Clean(dir))
		if parent == dir {
			return nil
		}
		dir = parent
	}
	f, err := os.CreateTemp(dir, ".proflab-write-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// machinesNote is config.toml's header when the scenario built machines
// other than the configuration's [machine] (lab.machine{ version = … }):
// the table below is the default the scenario started from, not what it
// ran, and the header says what it ran (result.json's machines has all).
func machinesNote(cfg *config.Config, r Result) string {
	if r.Outputs == nil {
		return ""
	}
	var b strings.Builder
	for _, m := range output.Summarize(r.Outputs).Machines {
		d := cfg.Machine
		if m.Version == d.Version && m.Arch == d.Arch && m.CPUs == d.CPUs && m.Vendor == d.CPUVendor {
			continue
		}
		fmt.Fprintf(&b, "#   machine %d: Windows %s %s, %d processors, %s, HALs %s\n", m.Index, m.Version, m.Arch, m.CPUs, m.Vendor, strings.Join(m.HALs, ", "))
	}
	if b.Len() == 0 {
		return ""
	}
	return "# The configuration in force. Its [machine] is the default the scenario\n" +
		"# started from; the scenario built these machines instead (result.json's\n" +
		"# machines describe every machine it built):\n" + b.String() + "\n"
}
