package tomlstrict

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// A document nested past MaxNesting is refused before decoding, naming
// the file and the line: 2·10^6 nested [ ended the process with Go's fatal
// stack overflow, 10^6 dotted parts took seconds and a gigabyte.
func TestDeepDocumentsAreRefused(t *testing.T) {
	deep := func(open, mid, close string, n int) string {
		return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
	}
	for _, tc := range []struct {
		name, doc string
		line      string
	}{
		{"2·10^6 unclosed [", "a = " + strings.Repeat("[", 2e6), "2"},
		{"arrays", "a = " + deep("[", "1", "]", 65), "2"},
		{"inline tables", "a = " + deep("{ b = ", "1", " }", 64), "2"},
		{"a dotted key", "a" + strings.Repeat(".b", 1e6) + " = 1", "2"},
		{"a header", "[a" + strings.Repeat(".b", 64) + "]\nx = 1", "2"},
		{"a header, then a key", "[a" + strings.Repeat(".b", 40) + "]\nx" + strings.Repeat(".y", 24) + " = 1", "3"},
		{"a key in an inline table", "a = { b" + strings.Repeat(".c", 63) + " = 1 }", "2"},
		{"arrays over lines", "a = [\n" + deep("[\n", "1", "]\n", 64) + "]", "65"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "# a comment\n" + tc.doc + "\n"
			var v map[string]any
			_, err := Decode("deep.toml", []byte(doc), &v, Options{})
			want := "deep.toml:" + tc.line + ": tables, arrays and inline tables nest more than 64 levels deep here"
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %v, want %s", err, want)
			}
		})
	}
}

// Brackets in strings and comments do not nest, and 64 levels decode.
func TestNestingThatIsRead(t *testing.T) {
	brackets := strings.Repeat("[{", 100)
	for _, doc := range []string{
		"a = " + strings.Repeat("[", 63) + "1" + strings.Repeat("]", 63),
		"a" + strings.Repeat(".b", 63) + " = 1",
		"[a" + strings.Repeat(".b", 31) + "]\nc" + strings.Repeat(".d", 31) + " = 1",
		"a = { b = { c = [[1, 2], [3]] }, d = '" + brackets + "' }",
		`s = "` + brackets + `"` + "\nt = '" + brackets + "'\n# " + brackets + "\n" + `u = "\"` + brackets + `"`,
		`m = """` + "\n" + brackets + `\"""` + "\n" + brackets + `"""""` + "\nn = '''\n" + brackets + "\n'''\nx = 1",
		`"quoted.key[" = 1` + "\n" + `[ "t[" . 'u{' ]` + "\nv = 2",
		"a = [ # " + brackets + "\n  1, # ]]]]\n  2,\n]",
	} {
		if err := CheckNesting("ok.toml", []byte(doc)); err != nil {
			t.Errorf("%.80s…: %v", doc, err)
		}
		var v map[string]any
		if _, err := toml.Decode(doc, &v); err != nil {
			t.Errorf("%.80s…: does not decode: %v", doc, err)
		}
	}
}

// Every TOML file of the repository (examples, test data) is read.
func TestRepositoryFilesAreWithinTheNesting(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".toml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if err := CheckNesting(path, data); err != nil {
			t.Error(err)
		}
		return nil
	})
	if err != nil || n < 10 {
		t.Fatalf("walked %d files: %v", n, err)
	}
}
