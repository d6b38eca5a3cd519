package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeLines writes the lines of the given indexes, in that order, and
// then tail (a torn line, say) to a results file in a new folder.
func writeLines(t *testing.T, idx []int, tail string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	app, err := OpenAppender(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range idx {
		if err := app.Append(line(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := app.Close(); err != nil {
		t.Fatal(err)
	}
	if tail != "" {
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(tail)
		f.Close()
	}
	return path
}

// indexes are the indexes of the file's lines, in file order.
func indexes(t *testing.T, path string) string {
	t.Helper()
	var out []int
	torn, err := Each(path, func(l Line, _ []byte, _ int64) error { out = append(out, l.Index); return nil })
	if err != nil || torn {
		t.Fatalf("%v (torn %v)", err, torn)
	}
	return fmt.Sprint(out)
}

// SortFile puts the lines in run order through its table on disk, and
// keeps the file's mode (the appender's 0644 less the umask, never a
// temporary file's 0600).
func TestSortFile(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := writeLines(t, []int{3, 0, 4, 1, 2}, "")
	if err := SortFile(path, 5, func(i int) int { return i }); err != nil {
		t.Fatal(err)
	}
	if got := indexes(t, path); got != "[0 1 2 3 4]" {
		t.Errorf("sorted: %s", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v after the rewrite, want -rw-r--r-- as the appender made it", st.Mode().Perm())
	}
	if err := SortFile(path, 4, func(i int) int { return i }); err == nil {
		t.Error("a run outside the positions was accepted")
	}
	// a shard's positions: runs 1, 4, 7 of shard 1/3 at 0, 1, 2
	path = writeLines(t, []int{7, 1, 4}, "")
	if err := SortFile(path, 3, func(i int) int { return i / 3 }); err != nil {
		t.Fatal(err)
	}
	if got := indexes(t, path); got != "[1 4 7]" {
		t.Errorf("shard sorted: %s", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// Filter drops what keep refuses and a torn last line, rewriting the file
// only then; keep's error leaves the file as it was.
func TestFilter(t *testing.T) {
	path := writeLines(t, []int{0, 1, 2, 3}, `{"index":4,"id":"torn`)
	if err := Filter(path, RunCount(5), func(l Line) (bool, error) { return l.Index%2 == 0, nil }); err != nil {
		t.Fatal(err)
	}
	if got := indexes(t, path); got != "[0 2]" {
		t.Errorf("kept %s, want [0 2]", got)
	}
	before, _ := os.ReadFile(path)
	if err := Filter(path, RunCount(5), func(l Line) (bool, error) { return false, fmt.Errorf("no") }); err == nil {
		t.Error("keep's error was not returned")
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a failed Filter changed the file")
	}
	n, torn, err := Count(path)
	if n != 2 || torn || err != nil {
		t.Errorf("Count: %d, %v, %v", n, torn, err)
	}
}

// EachInRunOrder reads an unsorted file (an interrupted, resumed sweep's)
// in run order, and a sorted one as it is; a torn line is reported.
func TestEachInRunOrder(t *testing.T) {
	for _, c := range []struct {
		idx  []int
		tail string
	}{{[]int{2, 0, 3, 1}, ""}, {[]int{0, 1, 2, 3}, `{"ind`}} {
		path := writeLines(t, c.idx, c.tail)
		var got []int
		torn, err := EachInRunOrder(path, nil, func(l Line) error { got = append(got, l.Index); return nil })
		if err != nil || fmt.Sprint(got) != "[0 1 2 3]" || torn != (c.tail != "") {
			t.Errorf("%v: got %v, torn %v, %v", c.idx, got, torn, err)
		}
	}
}

// within runs fn and fails the test if it has not returned after d: a
// read that hangs on a FIFO must fail the test, not hang it.
func within(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still reading after %s", d)
	}
}

// A results file is read only if it is a regular file, and only up to
// MaxLine a line: a FIFO is refused, not waited on; a symbolic link to
// /dev/zero and a large file without a newline are errors naming the
// file, read in bounded memory (issue 29.13).
func TestReadersAreBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	zero := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	// 512 MiB without a newline, sparse: cheap on disk, not in memory
	long := filepath.Join(dir, "long.jsonl")
	f, err := os.Create(long)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(512 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct{ path, want string }{
		{fifo, "FIFO"},
		{zero, "character device"},
		{long, "long.jsonl:1: results line too long"},
	} {
		readers := map[string]func() error{
			"Each":           func() error { _, err := Each(c.path, func(Line, []byte, int64) error { return nil }); return err },
			"Count":          func() error { _, _, err := Count(c.path); return err },
			"Read":           func() error { _, _, err := Read(c.path); return err },
			"EachInRunOrder": func() error { _, err := EachInRunOrder(c.path, nil, func(Line) error { return nil }); return err },
			"SortFile":       func() error { return SortFile(c.path, 10, func(i int) int { return i }) },
			"Filter":         func() error { return Filter(c.path, RunCount(10), func(Line) (bool, error) { return true, nil }) },
		}
		for name, read := range readers {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var err error
			within(t, 10*time.Second, func() { err = read() })
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s(%s): %v, want an error saying %q", name, filepath.Base(c.path), err, c.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
				t.Errorf("%s(%s) allocated %d MiB", name, filepath.Base(c.path), grew>>20)
			}
		}
	}
}

// The appender writes only to a regular file, and never a line it could
// not read back.
func TestAppenderBounds(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	within(t, 10*time.Second, func() {
		if _, err := OpenAppender(fifo); err == nil {
			t.Error("OpenAppender opened a FIFO")
		}
	})
	path := filepath.Join(dir, FileName)
	a, err := OpenAppender(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	big := line(0)
	big.Metrics = map[string]any{"s": strings.Repeat("x", MaxLine)}
	if err := a.Append(big); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("a line over MaxLine: %v", err)
	}
	if n, _, err := Count(path); n != 0 || err != nil {
		t.Errorf("%d lines, %v after the refused line", n, err)
	}
}

// A run twice in a results file is refused by every reader that sees the
// whole file, naming the run, its two lines and the repair, with the file
// left as it was: no reader picks one of the lines (issue 29.6).
func TestDuplicatesAreRefused(t *testing.T) {
	for name, read := range map[string]func(path string) error{
		"SortFile": func(p string) error { return SortFile(p, 5, func(i int) int { return i }) },
		"EachInRunOrder": func(p string) error {
			_, err := EachInRunOrder(p, nil, func(Line) error { return errors.New("a line reached fn before the file was checked") })
			return err
		},
		"Filter": func(p string) error { return Filter(p, RunCount(5), func(Line) (bool, error) { return false, nil }) },
	} {
		for _, c := range []struct {
			idx    []int
			second int // the line of run 1's second line
		}{{[]int{0, 1, 2, 1, 3}, 4}, {[]int{0, 1, 1, 2}, 3}} { // unsorted; sorted
			path := writeLines(t, c.idx, "")
			before, _ := os.ReadFile(path)
			err := read(path)
			var dup *DuplicateError
			if !errors.As(err, &dup) || dup.Index != 1 || dup.ID != "idb" || dup.Lines != [2]int{2, c.second} {
				t.Errorf("%s over %v: %v, want run 1 twice, on lines 2 and %d", name, c.idx, err, c.second)
				continue
			}
			for _, w := range []string{"run idb (index 1) is there twice", "delete both lines", "--resume"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %q does not say %q", name, err, w)
				}
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Errorf("%s changed the file it refused", name)
			}
		}
	}
}

// With the plan known, EachInRunOrder holds every line to it before fn
// sees the first: a last line that is no run of the sweep (its seed, id,
// params or index edited) or no result at all is refused, naming that
// line, and fn is never called; the same file unedited passes whole.
func TestEachInRunOrderValidatesFirst(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(l *Line) // of the last line; nil: no edit
		raw  string        // the last line instead, when not ""
		want string
	}{
		{"unedited", nil, "", ""},
		{"seed", func(l *Line) { l.Seed = 7 }, "", ":5: run 4 (ide) has the seed 7, but this sweep's run 4 has 0"},
		{"id", func(l *Line) { l.ID = "idz" }, "", ":5: run 4 has the id idz, but this sweep's run 4 is ide"},
		{"params", func(l *Line) { l.Params["n"] = int64(9) }, "", `:5: run 4 (ide) has the params {"n":9,"s":"x"}, but this sweep's run 4 has {"n":4,"s":"x"}`},
		{"index", func(l *Line) { l.Index = 5 }, "", ":5: run ide has the index 5, and this sweep's 5 runs are 0…4"},
		{"metrics not a table", nil, `{"index":4,"id":"ide","params":{"n":4,"s":"x"},"repeat":0,"seed":0,"status":"ok","metrics":[1],"checks":[],"interrupts":{},"error":null,"timings":{"wall_seconds":0}}` + "\n",
			":5: not a result line (json: cannot unmarshal array into Go struct field Line.metrics of type map[string]interface {})"},
		{"unknown field", nil, `{"index":4,"id":"ide","params":{"n":4,"s":"x"},"repeat":0,"seed":0,"status":"ok","metrics":{},"checks":[],"interrupts":{},"error":null,"timings":{"wall_seconds":0},"extra":1}` + "\n",
			`:5: not a result line (json: unknown field "extra")`},
	} {
		for _, order := range [][]int{{0, 1, 2, 3, 4}, {3, 1, 0, 2, 4}} { // sorted, unsorted
			t.Run(fmt.Sprint(c.name, order), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), FileName)
				var text strings.Builder
				for _, i := range order {
					l := line(i)
					if i == 4 && c.edit != nil {
						c.edit(&l)
					}
					b, err := l.Marshal()
					if err != nil {
						t.Fatal(err)
					}
					if i == 4 && c.raw != "" {
						b = []byte(c.raw)
					}
					text.Write(b)
				}
				if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				var seen []int
				_, err := EachInRunOrder(path, linesPlan(5), func(l Line) error { seen = append(seen, l.Index); return nil })
				if c.want == "" {
					if err != nil || fmt.Sprint(seen) != "[0 1 2 3 4]" {
						t.Errorf("got %v, %v; want every run in order", seen, err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), FileName+c.want) {
					t.Errorf("got %v; want %s%s", err, FileName, c.want)
				}
				if len(seen) > 0 {
					t.Errorf("fn saw runs %v before the bad last line was refused", seen)
				}
			})
		}
	}
}
