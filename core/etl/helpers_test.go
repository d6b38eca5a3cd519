package etl_test

import (
	"archive/zip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/proflab/proflab/core/etl"
)

// The test traces (testdata/README.md says where they come from).
const (
	x86Zip   = "perfview-net.4.5.2.x86.etl.zip"
	rundown  = "etlparser-ShutdownPerfDiagLogger.etl"
	smallest = "etlparser-lxcore_kernel.etl"
)

// traceBytes is a test trace's bytes, the .etl inside a zip.
func traceBytes(t testing.TB, name string) []byte {
	t.Helper()
	path := filepath.Join("testdata", name)
	if filepath.Ext(name) != ".zip" {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, f := range z.File {
		if filepath.Ext(f.Name) == ".etl" {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("%s holds no .etl", path)
	return nil
}

// drain reads r's records to the end, handing each to fn (nil: none):
// nil at the end of the file, else the first error.
func drain(r *etl.Reader, fn func(*etl.Record)) error {
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if fn != nil {
			fn(&rec)
		}
	}
}
