package input_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/core/input"
)

func TestReadsARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "a.lua")
	if err := os.WriteFile(p, []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.lua")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{p, link} {
		b, err := input.ReadFile(input.Scenario, path)
		if err != nil || string(b) != "print(1)\n" {
			t.Errorf("ReadFile(%s) = %q, %v; want the file's text", path, b, err)
		}
	}
}

func TestRefusesADevice(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero on this system")
	}
	_, err := input.ReadFile(input.Config, "/dev/zero")
	if !errors.Is(err, input.ErrNotRegular) {
		t.Fatalf("ReadFile(/dev/zero) = %v; want ErrNotRegular", err)
	}
	for _, want := range []string{"configuration file /dev/zero", "character device", "regular file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestRefusesAFIFOWithoutWaiting(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "fifo.toml")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := input.ReadFile(input.Sweep, p)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, input.ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") {
			t.Fatalf("ReadFile(FIFO) = %v; want an error saying it is a FIFO", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFile(FIFO) still waits after 10 s: it opened the FIFO instead of refusing it")
	}
}

func TestRefusesAFolder(t *testing.T) {
	t.Parallel()
	_, err := input.ReadFile(input.Workload, t.TempDir())
	if !errors.Is(err, input.ErrNotRegular) || !strings.Contains(err.Error(), "a folder") {
		t.Fatalf("ReadFile(folder) = %v; want an error saying it is a folder", err)
	}
}

func TestRefusesAFileOverTheLimit(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "big.lua")
	if err := os.WriteFile(p, make([]byte, 101), 0o644); err != nil {
		t.Fatal(err)
	}
	k := input.Kind{Name: "scenario", Limit: 100}
	_, err := input.ReadFile(k, p)
	if !errors.Is(err, input.ErrTooLarge) {
		t.Fatalf("ReadFile(101 bytes, limit 100) = %v; want ErrTooLarge", err)
	}
	for _, want := range []string{p, "101 bytes", "100 bytes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	k.Limit = 101
	if b, err := input.ReadFile(k, p); err != nil || len(b) != 101 {
		t.Errorf("ReadFile(101 bytes, limit 101) = %d bytes, %v; want the file", len(b), err)
	}
}

func TestMissingFileIsErrNotExist(t *testing.T) {
	t.Parallel()
	_, err := input.ReadFile(input.Module, filepath.Join(t.TempDir(), "none.lua"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadFile(missing) = %v; want fs.ErrNotExist", err)
	}
}

func TestLimitsAreDocumented(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []input.Kind{input.Scenario, input.Module, input.Config, input.Sweep, input.Workload} {
		if !strings.Contains(string(readme), input.Size(k.Limit)) {
			t.Errorf("README.md does not mention the %s limit %s", k.Name, input.Size(k.Limit))
		}
	}
}

func TestSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{12: "12 bytes", 1536: "1.5 KiB", 16 << 20: "16 MiB", 256 << 20: "256 MiB", 3 << 30: "3 GiB"} {
		if got := input.Size(n); got != want {
			t.Errorf("Size(%d) = %q; want %q", n, got, want)
		}
	}
}

// Read takes a stream up to the kind's limit and refuses a longer one.
func TestReadStream(t *testing.T) {
	k := input.Kind{Name: "profile", Limit: 8}
	if data, err := input.Read(k, "stdin", strings.NewReader("12345678")); err != nil || string(data) != "12345678" {
		t.Errorf("8 bytes: %q, %v", data, err)
	}
	_, err := input.Read(k, "stdin", strings.NewReader("123456789"))
	if !errors.Is(err, input.ErrTooLarge) || !strings.Contains(err.Error(), "profile stdin") {
		t.Errorf("9 bytes: %v, want input.ErrTooLarge naming the stream", err)
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path string
		dirs []string
		want bool
	}{
		{"/a/b/c.toml", []string{"/a/b"}, true},
		{"/a/b", []string{"/a/b"}, true},
		{"/a/b/../c.toml", []string{"/a/b"}, false}, // ../ is taken by name
		{"/a/c.toml", []string{"/a/b"}, false},
		{"/a/bc/d.toml", []string{"/a/b"}, false},
		{"/a/..b/d.toml", []string{"/a"}, true},
		{"/x/y", []string{"/a", "/x"}, true},
		{"/etc/passwd", nil, false},
	} {
		if got := input.Within(tc.path, tc.dirs...); got != tc.want {
			t.Errorf("Within(%s, %v) = %v, want %v", tc.path, tc.dirs, got, tc.want)
		}
	}
}
