package importer_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/proflab/proflab/core/workload/importer"
)

// hostile are bytes that TOML cannot hold as they are: control
// characters (a comment cannot hold them, a string only escaped) and
// bytes that are not UTF-8.
var hostile = []string{"\x01", "\x7f", "\x1b[31m", "\xff", "\xc3", "\r", "\x00", "\u2028"}

// TestWhatImportWritesRunReads: whatever `workload import` writes, m:run
// reads. Every testdata profile is imported under a file name full of
// control characters and bytes that are not UTF-8, and the text ones
// again with such bytes put into their names; each TOML written must load
// as m:run loads a workload file (importer.Load: strictly, as a TOML) and
// resolve for the machine.
func TestWhatImportWritesRunReads(t *testing.T) {
	files, _ := filepath.Glob("testdata/*")
	perf, _ := filepath.Glob("testdata/perf/*")
	files = append(files, perf...)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(29, 17))
	tried, imported, originals := 0, 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || strings.HasSuffix(f, ".toml") {
			continue
		}
		if _, err := importer.Detect(data); err != nil {
			continue // a program's source, not a profile
		}
		variants := [][]byte{data}
		if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			for range 6 {
				variants = append(variants, mutateNames(r, data))
			}
		}
		for i, v := range variants {
			if i == 0 {
				originals++
			} else {
				tried++
			}
			name := filepath.Join("some\x01dir", "n\x01a\x7fme\xff\r\n\x1b[0m"+filepath.Base(f))
			im, err := importer.Import(name, v, importer.Options{})
			if err != nil {
				if i == 0 {
					t.Errorf("%s: %v", f, err)
				}
				continue // the mutation broke the format: nothing written
			}
			if i > 0 {
				imported++
			}
			checkRunReads(t, dir, f, im)
		}
	}
	// A mutation that lands in a JSON key or a format's keyword breaks
	// the file (then nothing is written, which is right); a third of them
	// must still import, or the test says little of names.
	if originals < 40 || imported < tried/3 {
		t.Errorf("%d profiles, %d of %d mutated variants imported: the test exercises too little", originals, imported, tried)
	}
}

// TestWhatImportWritesRunReadsPprof: a pprof profile with control
// characters and bytes that are not UTF-8 in its sample type, period
// type, comments, mapping file and function names.
func TestWhatImportWritesRunReadsPprof(t *testing.T) {
	bad := "x\x01y\x7f\xff\r\nz"
	m := &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x500000, File: "/bin/" + bad, HasFunctions: true}
	fa := &profile.Function{ID: 1, Name: "main" + bad}
	fb := &profile.Function{ID: 2, Name: "work" + bad}
	la := &profile.Location{ID: 1, Mapping: m, Address: 0x401000, Line: []profile.Line{{Function: fa}}}
	lb := &profile.Location{ID: 2, Mapping: m, Address: 0x402000, Line: []profile.Line{{Function: fb}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu" + bad, Unit: "nanoseconds" + bad}},
		PeriodType: &profile.ValueType{Type: "cpu" + bad, Unit: "ns" + bad},
		Period:     1000,
		Comments:   []string{"comment " + bad},
		Mapping:    []*profile.Mapping{m},
		Function:   []*profile.Function{fa, fb},
		Location:   []*profile.Location{la, lb},
		Sample:     []*profile.Sample{{Location: []*profile.Location{lb, la}, Value: []int64{30}}, {Location: []*profile.Location{la}, Value: []int64{10}}},
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	im, err := importer.Import("prof"+bad+".pb.gz", b.Bytes(), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkRunReads(t, t.TempDir(), "pprof", im)
}

// checkRunReads writes im's TOML into dir and loads it as m:run does.
func checkRunReads(t *testing.T, dir, what string, im *importer.Imported) {
	t.Helper()
	text, err := im.TOML()
	if err != nil {
		t.Errorf("%s: TOML: %v", what, err)
		return
	}
	path := filepath.Join(dir, "w.toml")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	spec, again, err := importer.Load(path, "x64")
	switch {
	case err != nil:
		t.Errorf("%s: m:run refuses what import wrote: %v\n%s", what, err, head(text))
	case again != nil:
		t.Errorf("%s: the TOML import wrote does not read as a TOML (m:run imported it as a profile)", what)
	default:
		if _, err := spec.Resolve(x64); err != nil {
			t.Errorf("%s: the workload import wrote does not resolve: %v", what, err)
		}
	}
}

// mutateNames puts a hostile byte sequence in place of a few letters of
// data, in the middle of words (names, mostly).
func mutateNames(r *rand.Rand, data []byte) []byte {
	out := bytes.Clone(data)
	var at []int
	for i := 1; i+1 < len(out); i++ {
		if isLetter(out[i-1]) && isLetter(out[i]) && isLetter(out[i+1]) {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return out
	}
	for range 3 {
		i := at[r.IntN(len(at))]
		h := hostile[r.IntN(len(hostile))]
		out = append(out[:i:i], append([]byte(h), out[i+1:]...)...)
		at = at[:0]
		for j := 1; j+1 < len(out); j++ {
			if isLetter(out[j-1]) && isLetter(out[j]) && isLetter(out[j+1]) {
				at = append(at, j)
			}
		}
	}
	return out
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// head is the start of a text, for messages.
func head(b []byte) string { return string(b[:min(len(b), 600)]) }
