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

	"github.com/proflab/proflab/core/input"
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

// prepareOut resolves the output folder (following a symbolic link, a
// dangling one included, to where it points), checks that it is a new or
// empty folder or a sweep's own (checkOwn) before writing anything there,
// makes it, checks that it can be written, and takes its lock: one writer
// per folder. With wait, it waits for the folder's current writer to
// finish (until ctx ends); without, a folder being written is an error
// naming the writer. The returned function releases the lock; a writer
// that dies releases it with its process.
func prepareOut(ctx context.Context, dir string, wait bool) (string, func(), error) {
	dir, err := scenario.ResolveOut(dir)
	if err != nil {
		return "", nil, err
	}
	if err := checkOwn(dir); err != nil {
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
	// again under the lock: what the check saw may have changed before
	if err := checkOwn(dir); err != nil {
		unlock()
		return "", nil, err
	}
	return dir, unlock, nil
}

// lockFolder takes dir's lock (an advisory flock on dir/.lock).
func lockFolder(ctx context.Context, dir string, wait bool) (func(), error) {
	path := filepath.Join(dir, LockName)
	// never through a symbolic link (the holder line would truncate
	// whatever file it names), never a FIFO or device
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (the lock is a regular file a sweep makes; remove what is there)", path, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w: the lock is a regular file a sweep makes; remove what is there", path, input.ErrNotRegular)
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
			holder := make([]byte, 256) // "pid N on HOST since TIME"
			n, _ := f.ReadAt(holder, 0)
			f.Close()
			who, _, _ := strings.Cut(strings.TrimSpace(string(holder[:n])), "\n")
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

// checkOwn refuses an output folder that is not a sweep's own: only a
// folder holding a sweep.json (prepare then checks that the sweep is the
// same) may be written into, besides a new or empty one. A folder
// holding a summary.md and a plots/ of someone else's but no sweep.json
// is not a sweep's, whatever the names (a sweep would overwrite them).
// What a sweep's writer leaves before its sweep.json (the lock, a
// temporary results file) does not count.
func checkOwn(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil // a new folder
	}
	if err != nil {
		return err
	}
	var foreign []string
	for _, e := range ents {
		name := e.Name()
		switch {
		case name == ManifestName:
			return nil
		case name == LockName, name == ManifestName+".tmp", strings.HasPrefix(name, "."+results.FileName+".") && strings.HasSuffix(name, ".tmp"):
		default:
			foreign = append(foreign, name)
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	slices.Sort(foreign)
	if len(foreign) > 5 {
		foreign = append(foreign[:5], fmt.Sprintf("and %d more", len(foreign)-5))
	}
	return fmt.Errorf("%s is not a sweep's output folder: it holds %s and no %s; a sweep writes only into a new or empty folder, or into its own (with its %s) to --resume; nothing was written there: choose another --out",
		dir, strings.Join(foreign, ", "), ManifestName, ManifestName)
}

// Report rewrites the reports of the sweep output folder dir (a finished
// or merged sweep's: it must hold a sweep.json), holding the folder's
// lock while it writes; it touches only the files the reports own.
func Report(dir string) error { return ReportWith(dir, ReportOptions{}) }

// ReportFigures is Report, with the [units] and [[plot]] tables of the
// sweep file at sweepFile (when not "") replacing those the folder's
// sweep.json recorded: the way to correct a plot after the runs, since
// only the reports depend on them. The rest of sweepFile is read and
// checked, but not compared with the runs'. notes, when not nil, is told
// what the reports left out to stay bounded, as Options.Notes.
func ReportFigures(dir, sweepFile string, notes func(note string)) error {
	return ReportWith(dir, ReportOptions{Sweep: sweepFile, Notes: notes})
}

// ReportOptions tune ReportWith.
type ReportOptions struct {
	// Sweep is a sweep file whose [units], [labels], [report] and
	// [[plot]] replace those the folder's sweep.json recorded ("": keep
	// them).
	Sweep string
	// Formats replace the figure formats ([report] formats) when not
	// empty: proflab report --format pdf.
	Formats []string
	// Notes, when not nil, is told what the reports left out to stay
	// bounded, as Options.Notes.
	Notes func(note string)
}

// ReportWith is Report with opt: the figures' tables and formats of
// another sweep file or the command line, recorded in sweep.json so that
// the next report draws the same.
func ReportWith(dir string, opt ReportOptions) error {
	notes := opt.Notes
	if err := report.CheckFormats(opt.Formats); err != nil && len(opt.Formats) > 0 {
		return fmt.Errorf("--format: %w", err)
	}
	var f *File
	if opt.Sweep != "" {
		var err error
		if f, err = ReadFile(opt.Sweep); err != nil {
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
		m.Sweep, m.Units, m.Plots, m.Labels, m.Formats = filepath.ToSlash(f.Path), f.Units, f.Plots, f.Labels, f.Formats
	}
	if len(opt.Formats) > 0 {
		m.Formats = opt.Formats
	}
	if f != nil || len(opt.Formats) > 0 {
		if err := writeManifest(dir, *m); err != nil {
			return err
		}
	}
	runs, err := m.runs()
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	each, err := report.WriteWith(dir, report.Options{Runs: runs})
	tell(notes, each)
	return err
}
