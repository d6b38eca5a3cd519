package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Read reads a results file. A last line without its newline is a run
// that was being written when the sweep was killed: it is left out and
// torn reports it (Truncate drops it from the file). Any other line that
// is not a result is an error naming the file and line.
func Read(path string) (lines []Line, torn bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	complete := data
	if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
		complete, torn = data[:i+1], true
	}
	for n, raw := range bytes.SplitAfter(complete, []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		l, err := Parse(raw)
		if err != nil {
			return nil, false, fmt.Errorf("%s:%d: not a result line (%v); the file was edited or is not a proflab results file", path, n+1, err)
		}
		lines = append(lines, l)
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
	if l.ID == "" || l.Status == "" {
		return Line{}, fmt.Errorf("no id or status")
	}
	return l, nil
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
// appending.
func OpenAppender(path string) (*Appender, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &Appender{f: f}, nil
}

// Append writes l.
func (a *Appender) Append(l Line) error {
	b, err := l.Marshal()
	if err != nil {
		return fmt.Errorf("run %s: %w", l.ID, err)
	}
	_, err = a.f.Write(b)
	return err
}

// Close closes the file.
func (a *Appender) Close() error { return a.f.Close() }
