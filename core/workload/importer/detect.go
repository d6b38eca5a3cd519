package importer

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/google/pprof/profile"
)

// MaxDecompressed is the largest size a gzipped source may decompress to
// (a guard against a small file that inflates without bound).
const MaxDecompressed = 1 << 30

// Detect names the format of a profile from its content: a gzipped or
// plain profile.proto, or a legacy form pprof reads, is [Pprof]; lines
// such as `prog 1234/1235 [002] 12345.678901: 250000 cycles:` are
// [Perf]; `frame;frame;frame COUNT` lines are [Folded]. A gzipped text
// file is detected by its decompressed content. The JSON formats
// ([CPUProfile], [ChromeTrace], [Speedscope], [Gecko], [Stackprof]) are
// recognised by their top-level keys.
func Detect(data []byte) (Format, error) {
	data, err := gunzip("", data)
	if err != nil {
		return "", errors.New(err.(*Error).Msg)
	}
	d, err := detect(data)
	if err != nil {
		return "", err
	}
	return d.format.name, nil
}

// gunzip decompresses gzipped data (up to MaxDecompressed bytes) and
// returns other data as it is.
func gunzip(name string, data []byte) ([]byte, error) {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, &Error{Source: name, Msg: fmt.Sprintf("the file starts as gzip but its header is broken (%v): give an intact file", err)}
	}
	out, err := io.ReadAll(io.LimitReader(zr, MaxDecompressed+1))
	if err != nil {
		return nil, &Error{Source: name, Msg: fmt.Sprintf("the gzipped content is broken or truncated (%v): give an intact file", err)}
	}
	if len(out) > MaxDecompressed {
		return nil, &Error{Source: name, Msg: fmt.Sprintf("the gzipped content inflates past %d MiB: refused (is it really a profile?)", MaxDecompressed>>20)}
	}
	return out, nil
}

// parsePprof parses data (not gzipped) as pprof does, turning a panic of
// the parser on hostile input into an error.
func parsePprof(data []byte) (p *profile.Profile, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("the pprof parser failed on this content (%v)", r)
		}
	}()
	return profile.ParseData(data)
}

// looksText says whether data's start is UTF-8 text without NUL bytes.
func looksText(data []byte) bool {
	head := data[:min(len(data), 4096)]
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	for len(head) > 0 {
		r, n := utf8.DecodeRune(head)
		if r == utf8.RuneError && n == 1 && len(head) >= utf8.UTFMax {
			return false
		}
		head = head[n:]
	}
	return true
}

// firstLines are up to n of data's first non-blank lines that are not
// comments (perf script prints `#` header lines with --header).
func firstLines(data []byte, n int) []string {
	var out []string
	for len(data) > 0 && len(out) < n {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 || line[0] == '#' {
			continue
		}
		out = append(out, string(line))
	}
	return out
}
