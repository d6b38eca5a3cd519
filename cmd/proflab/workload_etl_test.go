package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `proflab workload import` of Windows traces: PerfView's .etl.zip
// imports (exit 0, the summary's 4,900 samples), and bad input is one
// line and exit status 2: a damaged file naming buffer and offset, a zip
// of something else, a missing --symbols file, a 10 GB trace.
func TestWorkloadImportETL(t *testing.T) {
	dir := t.TempDir()
	testdata := filepath.Join("..", "..", "core", "etl", "testdata")
	zip := filepath.Join(testdata, "perfview-net.4.5.2.x86.etl.zip")
	code, _, stderr := runCLI("workload", "import", zip, "--process", "Test.x86.exe", "-o", filepath.Join(dir, "t.toml"))
	if code != ExitOK || !strings.Contains(stderr, ": etl, ") || !strings.Contains(stderr, "4900 samples") {
		t.Fatalf("code %d, stderr %q; want 0 and an etl summary of 4900 samples", code, stderr)
	}

	plain, err := os.ReadFile(filepath.Join(testdata, "etlparser-ShutdownPerfDiagLogger.etl"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.etl")
	if err := os.WriteFile(cut, plain[:100000], 0o644); err != nil {
		t.Fatal(err)
	}
	notZip := filepath.Join(dir, "notes.zip")
	if err := os.WriteFile(notZip, zipOf(t, "notes.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.etl")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(10 << 30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{cut}, "cut.etl: a damaged .etl file: buffer 1 (file offset 0x10000), offset 0x86a0: truncated"},
		{[]string{notZip}, "the zip archive holds no .etl file (it holds notes.txt)"},
		{[]string{zip, "--symbols", filepath.Join(dir, "none.symbols")}, "--symbols: "},
		{[]string{big}, "it is 10 GiB, and a profile is read only up to 256 MiB"},
	} {
		code, stdout, stderr := runCLI(append([]string{"workload", "import"}, c.args...)...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: code %d, stderr %q; want 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// zipOf is a zip archive holding one small file of that name.
func zipOf(t *testing.T, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, err := z.Create(name)
	if err == nil {
		_, err = w.Write([]byte("hello"))
	}
	if err == nil {
		err = z.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
