package etl

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Symbol is one function of a symbol listing: its image's base name (as
// the trace names it, such as Test.x86.exe or ntoskrnl.exe), its start
// relative to the image's base, its size in bytes and its name.
type Symbol struct {
	Image string
	RVA   uint64
	Size  uint64
	Name  string
}

// ReadSymbols reads a symbol listing (`trace.symbols`, or the importer's
// --symbols FILE): UTF-8 text, one function a line, `IMAGE RVA SIZE NAME`
// separated by single spaces or tabs, RVA and SIZE hexadecimal with a 0x
// prefix, NAME the rest of the line (it may hold spaces). Blank lines and
// lines starting with # are comments. name is the file's name for errors,
// which say file:line, what is wrong and what the line should be.
func ReadSymbols(r io.Reader, name string) ([]Symbol, error) {
	var out []Symbol
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		s, err := parseSymbol(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v; a line is `IMAGE 0xRVA 0xSIZE NAME`, such as `Test.x86.exe 0x1a40 0x3c Program.Main`", name, line, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	return out, nil
}

// cutField splits s at its first space or tab.
func cutField(s string) (string, string, bool) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

func parseSymbol(text string) (Symbol, error) {
	var s Symbol
	image, rest, ok := cutField(text)
	rva, rest2, ok2 := cutField(rest)
	size, name, ok3 := cutField(rest2)
	if !ok || !ok2 || !ok3 || image == "" || name == "" {
		return s, fmt.Errorf("want four fields, got %q", text)
	}
	var err error
	if s.RVA, err = hex0x(rva); err != nil {
		return s, fmt.Errorf("RVA %q: %v", rva, err)
	}
	if s.Size, err = hex0x(size); err != nil {
		return s, fmt.Errorf("SIZE %q: %v", size, err)
	}
	s.Image, s.Name = image, name
	return s, nil
}

func hex0x(s string) (uint64, error) {
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return 0, fmt.Errorf("not hexadecimal with a 0x prefix")
	}
	v, err := strconv.ParseUint(s[2:], 16, 64)
	if err != nil {
		return 0, fmt.Errorf("not hexadecimal with a 0x prefix")
	}
	return v, nil
}

// WriteSymbols writes syms as a symbol listing that ReadSymbols reads,
// sorted by image then RVA so that the same functions give the same bytes,
// after a comment line saying what the file is.
func WriteSymbols(w io.Writer, syms []Symbol) error {
	sorted := append([]Symbol(nil), syms...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Image != sorted[j].Image {
			return sorted[i].Image < sorted[j].Image
		}
		return sorted[i].RVA < sorted[j].RVA
	})
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# proflab symbol listing: IMAGE RVA SIZE NAME (docs/etl.md)")
	for _, s := range sorted {
		if s.Image == "" || s.Name == "" || strings.ContainsAny(s.Image, " \t\r\n") || strings.ContainsAny(s.Name, "\r\n") {
			return fmt.Errorf("symbol listing: function %q of image %q cannot be written on one line (an image name without spaces, a name without line breaks)", s.Name, s.Image)
		}
		fmt.Fprintf(bw, "%s 0x%x 0x%x %s\n", s.Image, s.RVA, s.Size, s.Name)
	}
	return bw.Flush()
}
