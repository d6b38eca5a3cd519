package importer

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"

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
	data, _ = decodeText(data)
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

// decodeText turns text in UTF-16 with a byte-order mark (as Windows
// tools and PowerShell's redirections write it) into UTF-8 and drops a
// UTF-8 byte-order mark; enc names the encoding read ("" for data
// returned as it is). Other data is returned as it is.
func decodeText(data []byte) (out []byte, enc string) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return data[3:], "UTF-8 with a byte-order mark"
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return utf16Text(data[2:], binary.LittleEndian), "UTF-16 LE"
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return utf16Text(data[2:], binary.BigEndian), "UTF-16 BE"
	}
	return data, ""
}

// utf16Text is UTF-16 data (without its byte-order mark) in UTF-8; an odd
// last byte is dropped, unpaired surrogates become U+FFFD.
func utf16Text(data []byte, order binary.ByteOrder) []byte {
	units := make([]uint16, len(data)/2)
	for i := range units {
		units[i] = order.Uint16(data[2*i:])
	}
	var b bytes.Buffer
	b.Grow(len(units))
	for _, r := range utf16.Decode(units) {
		b.WriteRune(r)
	}
	return b.Bytes()
}

// looksText says whether data's start is text: no NUL byte, and few
// other control characters (at most 1 in 100 bytes). Bytes that are not
// UTF-8 (a name in Latin-1, say) do not make it binary: the import
// replaces them by U+FFFD in names, with a note.
func looksText(data []byte) bool {
	head := data[:min(len(data), 4096)]
	control := 0
	for _, c := range head {
		switch {
		case c == 0:
			return false
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v', c == 0x7F:
			control++
		}
	}
	return control*100 <= len(head)
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
