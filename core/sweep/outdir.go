package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/proflab/proflab/core/scenario"
	"github.com/proflab/proflab/core/sweep/report"
	"github.com/proflab/proflab/core/sweep/results"
)

// LockName is the file in a sweep's output folder that its one writer
// holds locked (flock) while it writes there.
const LockName = ".lock"

// ErrLocked is the error of a sweep, merge or report started on a folder
// another proflab is writing.
var ErrLocked = errors.New("another proflab is writing this folder")

// own are the entries a sweep writes into its output folder; a folder
// holding anything else is not a sweep's, and a sweep refuses to write
// there (it would overwrite or delete what it does not own).
var own = []string{ManifestName, results.FileName, report.CSVName, report.SummaryName, report.HTMLName,
	report.PlotsDir, "logs", RunsDir, LockName}

// prepareOut resolves the output folder (following a symbolic link, a
// dangling one included, to where it points), makes it, checks that it
// can be written, and takes its lock: one writer per folder. With wait,
// it waits for the folder's current writer to finish (until ctx ends);
// without, a folder being written is an error naming the writer. The
// returned function releases the lock; a writer that dies releases it
// with its process.
func prepareOut(ctx context.Context, dir string, wait bool) (string, func(), error) {
	dir, err := scenario.ResolveOut(dir)
	if err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	if err := scenario.CheckWritable(dir); err != nil {
		return "", nil, err
	}
	unlock, err := lockFolder(ctx, dir, wait)
	if err != nil {
		return "", nil, err
	}
	return dir, unlock, nil
}

// lockFolder takes dir's lock (an advisory flock on dir/.lock).
func lockFolder(ctx context.Context, dir string, wait bool) (func(), error) {
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if !wait {
			holder, _ := os.ReadFile(path)
			f.Close()
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("%s: %w (%s): one writer per output folder; wait for it to end, add --wait to wait for it, or choose another --out", dir, ErrLocked, who)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	host, _ := os.Hostname()
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+" on "+host+" since "+time.Now().UTC().Format(time.RFC3339)+"\n"), 0)
	return func() {
		_ = f.Truncate(0)
		f.Close() // releases the lock
	}, nil
}

// checkOwn refuses an output folder that holds entries a sweep does not
// write, unless it is this sweep's own (it has a sweep.json: prepare then
// checks that the sweep is the same). An empty folder, or one holding only
// a lock, is a new sweep's.
func checkOwn(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var foreign []string
	mine := false
	for _, e := range ents {
		name := e.Name()
		switch {
		case name == ManifestName:
			mine = true
		case slices.Contains(own, name), strings.HasPrefix(name, "."+results.FileName+"."), strings.HasPrefix(name, ".results-"):
		default:
			foreign = append(foreign, name)
		}
	}
	if mine || len(foreign) == 0 {
		return nil
	}
	slices.Sort(foreign)
	if len(foreign) > 5 {
		foreign = append(foreign[:5], fmt.Sprintf("and %d more", len(foreign)-5))
	}
	return fmt.Errorf("%s holds files that are not a sweep's (%s): a sweep writes into a new or empty folder, or its own to --resume; choose another --out", dir, strings.Join(foreign, ", "))
}

// Report rewrites the reports of the sweep output folder dir (a finished
// or merged sweep's: it must hold a sweep.json), holding the folder's
// lock while it writes; it touches only the files the reports own.
func Report(dir string) error { return ReportFigures(dir, "", nil) }

// ReportFigures is Report, with the [units] and [[plot]] tables of the
// sweep file at sweepFile (when not "") replacing those the folder's
// sweep.json recorded: the way to correct a plot after the runs, since
// only the reports depend on them. The rest of sweepFile is read and
// checked, but not compared with the runs'. notes, when not nil, is told
// what the reports left out to stay bounded, as Options.Notes.
func ReportFigures(dir, sweepFile string, notes func(note string)) error {
	var f *File
	if sweepFile != "" {
		var err error
		if f, err = ReadFile(sweepFile); err != nil {
			return err
		}
	}
	dir, err := scenario.ResolveOut(dir)
	if err != nil {
		return err
	}
	m, err := readManifest(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s has no %s: not a sweep's output folder (proflab report rewrites the reports of one)", dir, ManifestName)
		}
		return err
	}
	unlock, err := lockFolder(context.Background(), dir, false)
	if err != nil {
		return err
	}
	defer unlock()
	if f != nil {
		m.Sweep, m.Units, m.Plots = filepath.ToSlash(f.Path), f.Units, f.Plots
		if err := writeManifest(dir, *m); err != nil {
			return err
		}
	}
	each, err := report.Write(dir)
	tell(notes, each)
	return err
}
