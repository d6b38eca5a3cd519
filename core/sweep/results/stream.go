package results

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/proflab/proflab/core/input"
)

// MaxLine is the longest results line proflab writes and reads: 64 MiB,
// room for a run recording a million metrics. Reading lines only up to it
// keeps a damaged file (8 GB without a newline) from exhausting memory.
const MaxLine = 64 << 20

// ErrLineTooLong is wrapped by the error of a line longer than MaxLine.
var ErrLineTooLong = errors.New("results line too long")

// kind is what a results file is to core/input: a regular file (a FIFO
// or a device is refused, not waited on or read forever), of any size
// (a million runs make a large one; its lines are bounded instead).
var kind = input.Kind{Name: "results file", Limit: math.MaxInt64}

// open opens the results file at path for reading.
func open(path string) (*os.File, error) { return input.Open(kind, path) }

// Each calls fn with every complete line of the results file at path, in
// file order, with the line's byte offset, reading it as a stream: memory
// does not grow with the file. It reports a torn last line (a run being
// written when the sweep was killed) instead of passing it on; any other
// line that is not a result, and a line longer than MaxLine, is an error
// naming the file and line. A path that is not a regular file (a FIFO, a
// device) is refused. raw is valid only during the call. fn's error
// stops the walk and is returned.
func Each(path string, fn func(l Line, raw []byte, offset int64) error) (torn bool, err error) {
	return each(path, Parse, func(l Line, raw []byte, at int64, _ int) error { return fn(l, raw, at) })
}

// each is Each that decodes each line with parse (Parse, or
// parseLineHead where the params and metrics are not read) and also
// passes its number (from 1).
func each(path string, parse func([]byte) (Line, error), fn func(l Line, raw []byte, offset int64, n int) error) (torn bool, err error) {
	return eachRaw(path, func(raw []byte, at int64, n int) error {
		l, err := parse(raw)
		if err != nil {
			return notAResult(path, n, err)
		}
		return fn(l, raw, at, n)
	})
}

// notAResult is the error of line n of the results file at path, which
// Parse refused with err.
func notAResult(path string, n int, err error) error {
	return fmt.Errorf("%s:%d: not a result line (%v); the file was edited or is not a proflab results file", path, n, err)
}

// eachRaw is each without decoding: fn gets every complete line that is
// not blank, as it is in the file.
func eachRaw(path string, fn func(raw []byte, offset int64, n int) error) (torn bool, err error) {
	f, err := open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var offset int64
	var buf []byte
	for n := 1; ; n++ {
		raw, err := readLine(r, &buf)
		if errors.Is(err, io.EOF) {
			return len(raw) > 0, nil
		}
		if errors.Is(err, ErrLineTooLong) {
			return false, fmt.Errorf("%s:%d: %w: more than %s without a newline; the file is damaged or is not a proflab results file", path, n, err, input.Size(MaxLine))
		}
		if err != nil {
			return false, err
		}
		at := offset
		offset += int64(len(raw))
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		if err := fn(raw, at, n); err != nil {
			return false, err
		}
	}
}

// readLine reads the next line, its newline included, into *buf (reused
// between calls), up to MaxLine bytes: a longer one is ErrLineTooLong,
// read no further. At the end of the file it returns what is left (a
// torn line, or nothing) with io.EOF.
func readLine(r *bufio.Reader, buf *[]byte) ([]byte, error) {
	*buf = (*buf)[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		need := len(*buf) + len(chunk)
		if need > MaxLine {
			return nil, ErrLineTooLong
		}
		if need > cap(*buf) { // doubling: a long line costs twice its size, not five times
			grown := make([]byte, len(*buf), min(max(2*cap(*buf), need), MaxLine))
			copy(grown, *buf)
			*buf = grown
		}
		*buf = append(*buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return *buf, err
		}
	}
}

// Count is the number of complete lines of the results file at path, and
// whether its last line is torn. Every line is checked as Read does
// (parseHead: without decoding its params and metrics).
func Count(path string) (n int, torn bool, err error) {
	torn, err = each(path, parseLineHead, func(Line, []byte, int64, int) error { n++; return nil })
	return n, torn, err
}

// Filter keeps the lines of the results file at path for which keep says
// true, in their order, and drops a torn last line: the file is rewritten
// (atomically, as Write does) only when a line goes. The lines are runs
// of the sweep, each at most once: a line that is not one of runs (Validate)
// is an error naming its line, and a run found twice is a
// [DuplicateError]. keep's error stops it and is returned; on any error
// the file is unchanged.
func Filter(path string, runs Runs, keep func(Line) (bool, error)) error {
	var drop []int64 // offsets of the lines that go
	seen := newRunSet(runs.Len())
	torn, err := EachRun(path, runs, func(l Line, _ []byte, at int64) error {
		if seen.add(l.Index) {
			return duplicate(path, l.Index)
		}
		ok, err := keep(l)
		if !ok && err == nil {
			drop = append(drop, at)
		}
		return err
	})
	if err != nil || (!torn && len(drop) == 0) {
		return err
	}
	return rewrite(path, func(w io.Writer) error { // every line was decoded above: copied, not decoded again
		_, err := eachRaw(path, func(raw []byte, at int64, _ int) error {
			if len(drop) > 0 && drop[0] == at {
				drop = drop[1:]
				return nil
			}
			_, err := w.Write(raw)
			return err
		})
		return err
	})
}

// SortFile rewrites the results file at path in run order: the line of
// the run at position pos(index) first for pos 0, 1, … n-1 (a line whose
// pos is outside 0…n-1 is an error, and two lines of one position are a
// [DuplicateError], the file unchanged). It keeps each line's place in a table on disk
// (orderTable) rather than in memory, so sorting a million runs costs no
// more memory than sorting ten.
func SortFile(path string, n int, pos func(index int) int) error {
	table, err := orderTable(path, n, pos)
	if err != nil {
		return err
	}
	defer table.Close()
	return rewrite(path, func(w io.Writer) error {
		return eachInOrder(path, table, n, func(raw []byte) error {
			_, err := w.Write(raw)
			return err
		})
	})
}

// EachInRunOrder is Each in the order of the runs' indexes, whatever the
// order of the file (a sweep that was interrupted or resumed appends
// lines as runs finish), with the memory of Each; a torn last line is
// left out and reported. Before fn sees any line, every line is held to
// runs (Validate; nil: an index of 0 or more, any id) and a run found twice
// is a [DuplicateError].
//
// Each line is decoded whole once, as fn gets it. The pass before, which
// finds whether the file is in order, reads each line's index alone
// (lineIndex) without runs to hold lines to; with runs it decodes each
// line but its params and metrics (checkRun): enough to Validate it and
// to refuse any line Parse would refuse, so fn sees no line of a file
// that has a bad one further down.
func EachInRunOrder(path string, runs Runs, fn func(l Line) error) (torn bool, err error) {
	sorted, last := true, -1
	see := func(index int) {
		sorted = sorted && index > last
		last = max(last, index)
	}
	if runs != nil {
		torn, err = eachRaw(path, func(raw []byte, _ int64, n int) error {
			l, err := checkRun(path, runs, raw, n)
			if err != nil {
				return err
			}
			see(l.Index)
			return nil
		})
	} else {
		torn, err = eachRaw(path, func(raw []byte, _ int64, n int) error {
			index, ok := lineIndex(raw)
			if !ok {
				l, err := parseLineHead(raw)
				if err != nil {
					return notAResult(path, n, err)
				}
				index = l.Index
			}
			if index < 0 {
				return fmt.Errorf("%s:%d: a run has the index %d", path, n, index)
			}
			see(index)
			return nil
		})
	}
	if err != nil {
		return false, err
	}
	if sorted {
		last := -1
		_, err := each(path, Parse, func(l Line, _ []byte, _ int64, n int) error {
			if l.Index <= last { // a line whose index is not what lineIndex read
				return fmt.Errorf("%s:%d: run %s (index %d) is out of run order; the file was edited or is not a proflab results file", path, n, l.ID, l.Index)
			}
			last = l.Index
			return fn(l)
		})
		return torn, err
	}
	n := last + 1
	table, err := orderTable(path, n, func(i int) int { return i })
	if err != nil {
		return false, err
	}
	defer table.Close()
	return torn, eachInOrder(path, table, n, func(raw []byte) error {
		l, err := Parse(raw)
		if err != nil {
			return err
		}
		return fn(l)
	})
}

// indexPrefix is how every line Line.Marshal writes begins.
const indexPrefix = `{"index":`

// lineIndex reads the index of a line as Line.Marshal writes it
// (`{"index":12,…`) without decoding the rest; ok is false for a line
// that does not begin so, which the caller decodes.
func lineIndex(raw []byte) (index int, ok bool) {
	rest, found := bytes.CutPrefix(raw, []byte(indexPrefix))
	if !found {
		return 0, false
	}
	neg := len(rest) > 0 && rest[0] == '-'
	if neg {
		rest = rest[1:]
	}
	digits := 0
	for digits < len(rest) && digits < 18 && rest[digits] >= '0' && rest[digits] <= '9' {
		index = index*10 + int(rest[digits]-'0')
		digits++
	}
	if digits == 0 || digits >= len(rest) || rest[digits] != ',' || (digits > 1 && rest[0] == '0') {
		return 0, false
	}
	if neg {
		index = -index
	}
	return index, true
}

// orderSlot is the size of a line's entry in an order table: its offset
// (8 bytes) and length (4 bytes; 0 where no line has that position).
const orderSlot = 12

// orderTable writes, into an unlinked temporary file beside path, the
// place of each complete line of the results file at slot pos(index). A
// slot already taken is a run twice: a DuplicateError. Every line is
// checked as Read does, without decoding its params and metrics
// (parseHead).
func orderTable(path string, n int, pos func(index int) int) (*os.File, error) {
	table, err := os.CreateTemp(filepath.Dir(path), ".results-order-*")
	if err != nil {
		return nil, err
	}
	os.Remove(table.Name())
	var rec [orderSlot]byte
	if _, err := each(path, parseLineHead, func(l Line, raw []byte, at int64, _ int) error {
		p := pos(l.Index)
		if p < 0 || p >= n {
			return fmt.Errorf("%s: run %s (index %d) is not a run of this sweep", path, l.ID, l.Index)
		}
		// a slot never written reads as zeros (a hole, or past the end)
		if n, err := table.ReadAt(rec[:], int64(p)*orderSlot); n == orderSlot && binary.LittleEndian.Uint32(rec[8:]) != 0 {
			return duplicate(path, l.Index)
		} else if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		binary.LittleEndian.PutUint64(rec[:8], uint64(at))
		binary.LittleEndian.PutUint32(rec[8:], uint32(len(raw)))
		_, err := table.WriteAt(rec[:], int64(p)*orderSlot)
		return err
	}); err != nil {
		table.Close()
		return nil, err
	}
	return table, nil
}

// eachInOrder calls fn with the raw lines of the results file at path in
// the order of the n slots of table (orderTable).
func eachInOrder(path string, table *os.File, n int, fn func(raw []byte) error) error {
	src, err := open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	order := bufio.NewReaderSize(io.NewSectionReader(table, 0, int64(n)*orderSlot), 64<<10)
	var rec [orderSlot]byte
	var line []byte
	for range n {
		if _, err := io.ReadFull(order, rec[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil // the table ends at the last slot written
			}
			return err
		}
		size := int(binary.LittleEndian.Uint32(rec[8:]))
		if size == 0 {
			continue
		}
		if cap(line) < size {
			line = make([]byte, size)
		}
		line = line[:size]
		if _, err := src.ReadAt(line, int64(binary.LittleEndian.Uint64(rec[:8]))); err != nil {
			return err
		}
		if err := fn(line); err != nil {
			return err
		}
	}
	return nil
}

// rewrite replaces the file at path, atomically, by what write writes: a
// temporary file beside it, renamed over it. The new file has the mode
// of the one it replaces, or that os.OpenFile gives a new results file
// (0644 less the umask) — never CreateTemp's 0600, which would hide the
// results from the colleagues who can read the rest of the folder.
func rewrite(path string, write func(io.Writer) error) error {
	tmp, err := createBeside(path)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	w := bufio.NewWriterSize(tmp, 64<<10)
	if err := write(w); err != nil {
		return fail(err)
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if st, err := os.Stat(path); err == nil {
		if err := tmp.Chmod(st.Mode().Perm()); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Create writes a results file at path, atomically, from what write
// writes (a temporary file renamed into place, with the mode a new
// results file gets); on write's error nothing is left at path.
func Create(path string, write func(io.Writer) error) error { return rewrite(path, write) }

// tmpSeq tells apart the temporary files one process makes.
var tmpSeq atomic.Int64

// createBeside creates a new temporary file in path's folder with the
// mode os.OpenFile gives (0644 less the umask).
func createBeside(path string) (*os.File, error) {
	for {
		name := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%d-%d.tmp", filepath.Base(path), os.Getpid(), tmpSeq.Add(1)))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, err
	}
}
