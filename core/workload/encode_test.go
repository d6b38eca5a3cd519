package workload

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/BurntSushi/toml"
)

// burntSushi is s as github.com/BurntSushi/toml encodes it: what
// WriteTOML must write, byte for byte.
func burntSushi(t *testing.T, s *Spec) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(s); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWriteTOMLIsBurntSushisText: the streaming encoder writes what the
// reflective one wrote, on the workloads of the repository.
func TestWriteTOMLIsBurntSushisText(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/*.toml", "testdata/table/*.toml", "importer/testdata/*.toml", "../../examples/*/*.toml", "../../examples/*/*/*.toml"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(f, data)
		if err != nil {
			continue // a configuration or sweep file
		}
		n++
		got, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if want := burntSushi(t, s); !bytes.Equal(got, want) {
			t.Errorf("%s: WriteTOML differs from BurntSushi's encoder:\n%s\nwant:\n%s", f, got, want)
		}
	}
	if n < 3 {
		t.Fatalf("only %d workloads found in %v", n, files)
	}
}

// TestWriteTOMLIsBurntSushisTextOnEveryField fills every field of Spec
// (reflection finds the fields, so a field added later is covered) with
// zero and non-zero values, hostile strings and special floats, and
// compares the two encoders' texts.
func TestWriteTOMLIsBurntSushisTextOnEveryField(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		var s Spec
		fill(r, reflect.ValueOf(&s).Elem(), 0)
		got, err := Encode(&s)
		if err != nil {
			t.Fatal(err)
		}
		if want := burntSushi(t, &s); !bytes.Equal(got, want) {
			t.Fatalf("spec %d: WriteTOML differs from BurntSushi's encoder:\n%s\nwant:\n%s", i, got, want)
		}
	}
}

// fill sets v (and what it holds) to random values.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	strs := []string{"", "main", "a \"quoted\" \\ name", "tab\there", "ctl\x01\x1f\x7f", "new\nline\r", "é ü 名前", "operator new(unsigned long)", "img!f"}
	floats := []float64{0, 1, 0.5, 3, 1e21, 1e-7, 123456789, -2.5, math.Inf(1), math.NaN(), 1.0 / 3}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && v.Type().Field(i).Tag.Get("toml") != "-" {
				fill(r, v.Field(i), depth)
			}
		}
	case reflect.String:
		v.SetString(strs[r.IntN(len(strs))])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int64, reflect.Int32:
		if r.IntN(2) == 0 {
			v.SetInt(int64(r.IntN(100)) - 10)
		}
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		switch r.IntN(3) {
		case 1:
			v.SetUint(uint64(r.IntN(5000)))
		case 2:
			v.SetUint(r.Uint64())
		}
	case reflect.Float64:
		v.SetFloat(floats[r.IntN(len(floats))])
	case reflect.Slice:
		n := r.IntN(4) - 1 // -1: nil
		if depth > 4 || n < 0 {
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(r, s.Index(i), depth+1)
		}
		v.Set(s)
	}
}
