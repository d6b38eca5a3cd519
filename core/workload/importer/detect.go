package importer

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"

	"github.com/proflab/proflab/core/input"
)

// MaxDecompressed is the largest content an import reads, gzipped or
// not: the size limit of a workload file (256 MiB), which a plain
// profile file has too. A gzipped file is inflated at most that far, and
// one whose gzip trailer says it inflates further is refused before it
// is inflated at all. (A test keeps it input.Workload.Limit.)
const MaxDecompressed = 256 << 20

// MemoryPerByte is the least memory an import holds per byte of content:
// the content itself, its lines as text and the model of the profile
// (measured: 2 to 4 bytes besides the content on repetitive perf and
// folded profiles, 40 on folded stacks that are all distinct). With a
// memory budget (Options.Memory), the content may have at most
// Memory / MemoryPerByte bytes: a larger one is refused at once, and the
// budget's watchdog stops whatever grows past it while importing.
const MemoryPerByte = 3

// PprofMemoryPerByte is what a binary (pprof) profile costs per byte of
// its decompressed profile.proto: github.com/google/pprof/profile's
// parser holds 8.3 bytes per byte (measured on profiles of 20 to 80 MB),
// and cannot be stopped half way, so with a memory budget a binary
// profile may have at most Memory / PprofMemoryPerByte bytes.
const PprofMemoryPerByte = 10

// Detect names the format of a profile from its content: a gzipped or
// plain profile.proto, or a legacy form pprof reads, is [Pprof]; lines
// such as `prog 1234/1235 [002] 12345.678901: 250000 cycles:` are
// [Perf]; `frame;frame;frame COUNT` lines are [Folded]. A gzipped text
// file is detected by its decompressed content. The JSON formats
// ([CPUProfile], [ChromeTrace], [Speedscope], [Gecko], [Stackprof]) are
// recognised by their top-level keys.
func Detect(data []byte) (Format, error) {
	max, why := Options{}.maxContent()
	data, err := gunzip("", data, max, why)
	if err != nil {
		return "", errors.New(err.(*Error).Msg)
	}
	data, _ = decodeText(data)
	d, err := detect(data)
	if err != nil {
		return "", err
	}
	return Format(d.format.Name), nil
}

// gunzip decompresses gzipped data, up to max bytes of content, and
// returns other data as it is. The gzip trailer's ISIZE (the last
// member's size modulo 4 GiB, so at most its size) refuses a content
// larger than max before anything is inflated, and sizes the buffer, so
// that the content is held once; a trailer that understates is caught
// while inflating, at max bytes.
func gunzip(name string, data []byte, max int64, why string) ([]byte, error) {
	if !isGzip(data) {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, &Error{Source: name, Msg: fmt.Sprintf("the file starts as gzip but its header is broken (%v): give an intact file", err)}
	}
	var hint int64
	if len(data) >= 18 {
		hint = int64(binary.LittleEndian.Uint32(data[len(data)-4:]))
	}
	// A trailer deflate cannot have written (more than maxDeflateRatio
	// times the file) is not a trailer: the file was cut short, and its
	// last bytes are the middle of the stream. Inflating it (counted,
	// up to max) then finds where it ends.
	impossible := hint > maxDeflateRatio*int64(len(data))
	if impossible {
		hint = 0
	}
	broken := func(err error) error {
		if impossible && errors.Is(err, gzip.ErrChecksum) {
			said := int64(binary.LittleEndian.Uint32(data[len(data)-4:]))
			limit := ""
			if said > max {
				limit = fmt.Sprintf(", more than the %s an import reads and", input.Size(max))
			}
			return &Error{Source: name, Msg: fmt.Sprintf("the gzip trailer says the content inflates to at least %s%s more than deflate makes of the file's %s: the trailer is damaged or forged (the content does not match it); nothing was kept: give an intact file",
				input.Size(said), limit, input.Size(int64(len(data))))}
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			msg := "the file looks truncated: it ends in the middle of its gzip stream"
			if impossible {
				msg += fmt.Sprintf(" (and its last 4 bytes, read as the gzip trailer, would say it inflates to %s, more than deflate makes of %s)", input.Size(int64(binary.LittleEndian.Uint32(data[len(data)-4:]))), input.Size(int64(len(data))))
			}
			return &Error{Source: name, Msg: msg + ": give the whole file (gzip -t FILE checks one)"}
		}
		return &Error{Source: name, Msg: fmt.Sprintf("the gzipped content is broken or truncated (%v): give an intact file", err)}
	}
	if hint > max {
		// Truncated first: a cut file's last bytes are no trailer.
		// The stream is inflated into nothing, up to max, to tell.
		if _, err := io.Copy(io.Discard, io.LimitReader(zr, max+1)); err != nil {
			return nil, broken(err)
		}
		return nil, &Error{Source: name, Msg: fmt.Sprintf("the gzip trailer says the content inflates to at least %s, more than the %s an import reads (and the file is not truncated: its first %s inflate); nothing was kept: %s",
			input.Size(hint), input.Size(max), input.Size(max), why)}
	}
	out, more, err := inflate(zr, hint)
	if err != nil {
		return nil, broken(err)
	}
	if !more {
		return out, nil
	}
	// The trailer understates (several gzip members, or a lie): count
	// the content, up to max, then inflate it again into a buffer of its
	// size, so that it is held once and no buffer is grown by copying.
	tooLarge := &Error{Source: name, Msg: fmt.Sprintf("the gzipped content inflates past %s, the most an import reads (is it really a profile?): %s",
		input.Size(max), why)}
	if hint >= max {
		return nil, tooLarge
	}
	n, err := io.Copy(io.Discard, io.LimitReader(zr, max-hint-1))
	if err != nil {
		return nil, broken(err)
	}
	if n += hint + 1; n >= max {
		if extra, err := zr.Read(make([]byte, 1)); extra > 0 || err != io.EOF {
			return nil, tooLarge
		}
	}
	out = nil
	if err := zr.Reset(bytes.NewReader(data)); err != nil {
		return nil, broken(err)
	}
	if out, more, err = inflate(zr, n); err != nil || more {
		return nil, broken(fmt.Errorf("it inflated differently twice: %v", err))
	}
	return out, nil
}

// maxDeflateRatio bounds what deflate makes of a byte: at most 258
// bytes of content per 2 bits of stream, 1032 to 1.
const maxDeflateRatio = 1032

// inflate reads n bytes from zr; more says that the content goes on.
func inflate(zr *gzip.Reader, n int64) (out []byte, more bool, err error) {
	out = make([]byte, n)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, false, err
	}
	k, err := zr.Read(make([]byte, 1))
	if k > 0 {
		return out, true, nil
	}
	if err != io.EOF {
		return nil, false, err
	}
	return out, false, nil
}

// isGzip says whether data starts as gzip does.
func isGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

// trimAdvice says how to make a profile smaller.
const trimAdvice = "import a smaller profile (perf script --pid/--tid/--time/--cpu, pprof -focus/-tagfocus/-nodecount -proto, fewer seconds recorded)"

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
