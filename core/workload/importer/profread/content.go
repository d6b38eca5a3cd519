package profread

import "bytes"

// Content is what detection looks at: the decompressed bytes and, when
// they are text, their first lines. Every format's Detect gets the same
// Content, so what one computes (its JSON sniff) serves them all.
type Content struct {
	// Data is the content, decompressed.
	Data []byte
	// Text says the start of Data is text (see LooksText: UTF-8 or not,
	// without NUL bytes).
	Text bool
	// Lines are up to 20 of the first non-blank lines that are not `#`
	// comments, when Text; a line longer than 8 KiB is seen as its first
	// and last 4 KiB.
	Lines []string
	// json is the JSON sniff the JSON formats share (see JSON).
	json *JSONTop
}

// NewContent is data's (decompressed) content for detection.
func NewContent(data []byte) *Content {
	c := &Content{Data: data, Text: LooksText(data)}
	if c.Text {
		c.Lines = firstLines(data, 20)
	}
	return c
}

// LooksText says whether data's start is text: no NUL byte, and few
// other control characters (at most 1 in 100 bytes). Bytes that are not
// UTF-8 (a name in Latin-1, say) do not make it binary: the import
// replaces them by U+FFFD in names, with a note.
func LooksText(data []byte) bool {
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

// maxDetectLine is how much of a line detection looks at: a longer
// line is seen as its first and last maxDetectLine/2 bytes, so that a
// file of one huge line (a JSON document, a gigantic folded stack) is not
// copied whole, while a folded line keeps the count at its end.
const maxDetectLine = 8 << 10

// firstLines are up to n of data's first non-blank lines that are not
// comments (perf script prints `#` header lines with --header), each cut
// to its ends when longer than maxDetectLine.
func firstLines(data []byte, n int) []string {
	var out []string
	for len(data) > 0 && len(out) < n {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 || line[0] == '#' {
			continue
		}
		if len(line) > maxDetectLine {
			half := maxDetectLine / 2
			out = append(out, string(line[:half])+string(line[len(line)-half:]))
			continue
		}
		out = append(out, string(line))
	}
	return out
}
