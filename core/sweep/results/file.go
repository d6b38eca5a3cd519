package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/proflab/proflab/core/input"
)

// Read reads a results file whole, with Each's bounds. A last line
// without its newline is a run that was being written when the sweep was
// killed: it is left out and torn reports it. Any other line that is not
// a result is an error naming the file and line.
func Read(path string) (lines []Line, torn bool, err error) {
	torn, err = Each(path, func(l Line, _ []byte, _ int64) error {
		lines = append(lines, l)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return lines, torn, nil
}

// Parse decodes one line. Numbers keep their text (json.Number), so a
// line parsed and marshalled again is the same bytes.
func Parse(raw []byte) (Line, error) {
	var l Line
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	d.DisallowUnknownFields()
	if err := d.Decode(&l); err != nil {
		return Line{}, err
	}
	if err := complete(l); err != nil {
		return Line{}, err
	}
	return l, nil
}

// complete refuses a decoded line without the id or status every result
// has.
func complete(l Line) error {
	if l.ID == "" || l.Status == "" {
		return fmt.Errorf("no id or status")
	}
	return nil
}

// Write replaces the file at path by lines, atomically (a temporary file
// renamed over it, with the mode rewrite gives).
func Write(path string, lines []Line) error {
	return rewrite(path, func(w io.Writer) error {
		for _, l := range lines {
			b, err := l.Marshal()
			if err != nil {
				return fmt.Errorf("run %s: %w", l.ID, err)
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
}

// Appender appends lines to a results file, each written whole by one
// write call as its run finishes, so that a sweep killed at any moment
// keeps every finished run (at worst a torn last line, which Read drops).
type Appender struct {
	f *os.File
}

// OpenAppender opens (creating it if needed) the results file at path for
// appending. Only a regular file is appended to: a FIFO is refused, not
// waited on, and a symbolic link is not followed.
func OpenAppender(path string) (*Appender, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (a results file is a regular file)", path, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w: a results file is a regular file", path, input.ErrNotRegular)
	}
	return &Appender{f: f}, nil
}

// Append writes l. A line longer than MaxLine is not written: the error
// wraps ErrLineTooLong.
func (a *Appender) Append(l Line) error {
	b, err := l.Marshal()
	if err != nil {
		return fmt.Errorf("run %s: %w", l.ID, err)
	}
	if len(b) > MaxLine {
		return fmt.Errorf("run %s: %w: its line would be %s, and a results line holds at most %s", l.ID, ErrLineTooLong, input.Size(int64(len(b))), input.Size(MaxLine))
	}
	_, err = a.f.Write(b)
	return err
}

// Close closes the file.
func (a *Appender) Close() error { return a.f.Close() }
