package native_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/native"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

func TestFolded(t *testing.T) {
	t.Parallel()
	im := importFile(t, "folded.txt", importer.Options{})
	if im.Format != importer.Folded || im.Samples != 125 {
		t.Errorf("format %s, %d samples: want folded, 125 (the counts' sum)", im.Format, im.Samples)
	}
	// Root-first lines become leaf-first stacks; the two prog;main;compute
	// lines merge; frames keep their text, "_[k]" and spaces included.
	want := map[string]float64{
		"compute <- main <- prog":                                         45,
		"hash <- compute <- main <- prog":                                 20,
		"[unknown] <- hash <- compute <- main <- prog":                    5,
		"operator new(unsigned long) <- compute <- main <- prog":          5,
		"ksys_write_[k] <- entry_SYSCALL_64_[k] <- write <- main <- prog": 10,
		"intel_idle_[k] <- cpuidle_enter_[k] <- do_idle_[k] <- cpu_startup_entry_[k] <- start_secondary_[k] <- secondary_startup_64_no_verify_[k] <- swapper": 40,
	}
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), want)
	if len(im.Spec.Images) != 2 {
		t.Fatalf("%d images, want %s and %s", len(im.Spec.Images), native.FoldedImage, native.FoldedKernelImage)
	}
	for _, img := range im.Spec.Images {
		kernel := img.Name == native.FoldedKernelImage
		if img.Kernel != kernel {
			t.Errorf("image %s: kernel = %v", img.Name, img.Kernel)
		}
		for i, f := range img.Functions {
			if f.Size != profmodel.SyntheticSize || uint64(f.Offset) != uint64(i)*profmodel.SyntheticSize || len(f.Hotspots) != 0 {
				t.Errorf("%s!%s: +%s, %d bytes, %d hotspots; want +0x%X, %d, none (first-appearance order)", img.Name, f.Name, f.Offset, f.Size, len(f.Hotspots), i*profmodel.SyntheticSize, profmodel.SyntheticSize)
			}
		}
	}
	if _, f := importtest.Function(t, im.Spec, native.FoldedImage, "prog"); f.Offset != 0 {
		t.Errorf("the first frame seen, prog, is at +%s, want +0x0", f.Offset)
	}
	if im.Spec.Processes[0].Name != "folded.txt" {
		t.Errorf("process %q, want the file's name", im.Spec.Processes[0].Name)
	}
	if _, err := im.Spec.Resolve(x64); err != nil {
		t.Errorf("Resolve(x64): %v", err)
	}
	drop := importFile(t, "folded.txt", importer.Options{DropIdle: true, Process: "myprog"})
	if drop.Samples != 85 || drop.Spec.Processes[0].Name != "myprog" {
		t.Errorf("--drop-idle --process myprog: %d samples, process %q; want 85, myprog", drop.Samples, drop.Spec.Processes[0].Name)
	}
}

// TestFoldedGenerator imports importtest.Folded: each line is a stack of
// its count, leaf first.
func TestFoldedGenerator(t *testing.T) {
	t.Parallel()
	text := importtest.Folded(300, 5000, 9)
	want := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		i := strings.LastIndexByte(line, ' ')
		n, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatal(err)
		}
		frames := strings.Split(line[:i], ";")
		slices.Reverse(frames)
		want[strings.Join(frames, " <- ")] += n
	}
	im, err := importer.Import("gen.folded", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), want)
	if _, err := im.Spec.Resolve(x64); err != nil {
		t.Errorf("Resolve(x64): %v", err)
	}
}

// TestFoldedAsFound: folded stacks as tools and people leave them.
// Comment lines (`#`, `//`) are skipped, empty frames (`a;;b`) dropped,
// lines that are not a stack with a count (malformed counts: NaN, inf,
// 0x10, 1e-5, 12x, -3) skipped: notes count each and name the first by
// its line; CRLF line ends are line ends.
func TestFoldedAsFound(t *testing.T) {
	t.Parallel()
	text := "# collapsed by hand\r\n" +
		"java;main;run 10\r\n" +
		"java;main;gc 1\r\njava;main;gc 1\r\njava;main;gc 1\r\n" +
		"// a comment\r\n" +
		"java;;main;;lambda$0 5\r\n" +
		"java;main;bad NaN\r\n" +
		"java;main;bad inf\r\n" +
		"java;main;bad 0x10\r\n" +
		"java;main;bad 1e-5\r\n" +
		"java;main;bad 12x\r\n" +
		"java;main;bad -3\r\n" +
		"java;main;run 2.5\r\n"
	im, err := importer.Import("java.folded", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"run <- main <- java":      12.5,
		"gc <- main <- java":       3,
		"lambda$0 <- main <- java": 5,
	})
	for _, want := range []string{
		"2 comment lines",
		`6 lines that are not a stack with a count were skipped (the first: java.folded:8: count "NaN" is not a number of samples`,
		"1 stacks had empty frames (two ';' in a row, the first at line 7)",
	} {
		if len(importtest.NotesWith(im, want)) != 1 {
			t.Errorf("notes %q: want one saying %q", im.Notes, want)
		}
	}
	for _, c := range []struct{ count, why string }{
		{"NaN", "not a number"}, {"inf", "not a number"}, {"0x10", "not a number"}, {"1e-5", "not a number"}, {"12x", "not a number"}, {"-3", "negative"},
	} {
		_, err := importer.Import("one.folded", []byte("a;b "+c.count+"\n"), importer.Options{Format: importer.Folded})
		if err == nil || !strings.Contains(err.Error(), "one.folded:1:") || !strings.Contains(err.Error(), c.why) {
			t.Errorf("count %s alone: %v, want an error naming line 1 and saying %q", c.count, err, c.why)
		}
	}
}

// TestFoldedEncodings: folded stacks in UTF-16 (LE and BE, with their
// byte-order mark, as PowerShell's > writes), with a UTF-8 byte-order
// mark, or with bytes that are not UTF-8 (a Latin-1 name) are detected
// and read; invalid bytes become U+FFFD in names, with a note.
func TestFoldedEncodings(t *testing.T) {
	t.Parallel()
	text := "app;main;caf\u00e9 3\napp;main;run 7\n"
	utf16 := func(be bool) []byte {
		out := []byte{0xFF, 0xFE}
		if be {
			out = []byte{0xFE, 0xFF}
		}
		for _, u := range utf16.Encode([]rune(text)) {
			if be {
				out = append(out, byte(u>>8), byte(u))
			} else {
				out = append(out, byte(u), byte(u>>8))
			}
		}
		return out
	}
	want := map[string]float64{"caf\u00e9 <- main <- app": 3, "run <- main <- app": 7}
	for name, c := range map[string]struct {
		data []byte
		want map[string]float64
		note string
	}{
		"UTF-16 LE":   {utf16(false), want, "UTF-16 LE"},
		"UTF-16 BE":   {utf16(true), want, "UTF-16 BE"},
		"UTF-8 BOM":   {append([]byte{0xEF, 0xBB, 0xBF}, text...), want, "byte-order mark"},
		"Latin-1":     {[]byte("app;main;caf\xe9 3\napp;main;run 7\n"), map[string]float64{"caf\ufffd <- main <- app": 3, "run <- main <- app": 7}, "not UTF-8"},
		"gzip UTF-16": {importtest.Gzip(t, utf16(false)), want, "UTF-16 LE"},
	} {
		if f, err := importer.Detect(c.data); err != nil || f != importer.Folded {
			t.Errorf("%s: Detect = %s, %v; want folded", name, f, err)
		}
		im, err := importer.Import("enc.folded", c.data, importer.Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		importtest.CheckInvariants(t, im)
		importtest.EqualWeights(t, name+" stack", importtest.StackWeights(im.Spec), c.want)
		if len(importtest.NotesWith(im, c.note)) != 1 {
			t.Errorf("%s: notes %q, want one saying %q", name, im.Notes, c.note)
		}
	}
}

// TestFoldedNotTOML: a broken workload TOML is not taken for folded
// stacks (its `key = 1` lines end with a number).
func TestFoldedNotTOML(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"[[process]]\nname = 7\n", "instruction_bytes = 1\nname = 7\n"} {
		if f, err := importer.Detect([]byte(text)); err == nil {
			t.Errorf("%q detected as %s", text, f)
		}
	}
}
