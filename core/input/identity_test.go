package input_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/proflab/proflab/core/input"
)

// An identity is settled when the file's last change came RecentChange
// or more before its reading began, not when it came later or just
// before.
func TestIdentitySettled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.toml")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, fi, err := input.ReadFileInfo(input.Workload, path)
	if err != nil || string(data) != "x" {
		t.Fatalf("read %q: %v", data, err)
	}
	id := input.IdentityOf(fi)
	changed := fi.ModTime()
	for _, tt := range []struct {
		readAt time.Time
		want   bool
	}{
		{changed.Add(-time.Second), false}, // a clock behind the file's
		{changed, false},
		{changed.Add(input.RecentChange - time.Millisecond), false},
		{changed.Add(time.Hour), true},
	} {
		if got := id.Settled(tt.readAt); got != tt.want {
			t.Errorf("read %v after the change: settled %v, want %v", tt.readAt.Sub(changed), got, tt.want)
		}
	}
	if again, _ := os.Stat(path); input.IdentityOf(again) != id {
		t.Error("an unchanged file has another identity")
	}
	if err := os.WriteFile(path, []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, changed, changed); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(path); input.IdentityOf(again) == id {
		t.Error("a rewritten file of the same size and time kept its identity")
	}
}
