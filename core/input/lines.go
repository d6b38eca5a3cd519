package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrLineTooLong is wrapped by the error of a line longer than the bound
// of BoundLines.
var ErrLineTooLong = errors.New("line too long")

// BoundLines passes r on, failing as soon as a line runs past limit bytes
// without a newline: a reader that keeps a line whole (encoding/csv, a
// line scanner) then holds at most that much of it, whatever the file
// is (a 4 GB file without a newline, a link to /dev/zero read as a
// stream). The error says which line, with ErrLineTooLong; callers put
// the file's name before it.
func BoundLines(r io.Reader, limit int) io.Reader {
	return &lineBound{r: r, limit: limit, line: 1}
}

type lineBound struct {
	r     io.Reader
	limit int
	line  int // the line being read, from 1
	run   int // its bytes so far
}

func (l *lineBound) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for rest := p[:n]; ; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			l.run += len(rest)
			break
		}
		l.run += i
		if l.run > l.limit {
			break
		}
		l.line, l.run, rest = l.line+1, 0, rest[i+1:]
	}
	if l.run > l.limit {
		return 0, fmt.Errorf("line %d: %w: more than %s without a newline", l.line, ErrLineTooLong, Size(int64(l.limit)))
	}
	return n, err
}
