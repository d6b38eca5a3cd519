package output_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// A profile the run stopped and closed, and whose buffer it freed, as
// kernrate does, is in buckets.csv, accuracy.csv and its pprof file
// exactly as it would be had it stayed open; one that counted nothing
// has, as a stopped open one, no pprof file.
func TestClosedProfilesAreWritten(t *testing.T) {
	write := func(closeIt bool) (string, output.Summary) {
		t.Helper()
		l := labtest.Inproc(t, 2, 1)
		reg := &output.Registry{}
		reg.AddMachine(l.M, l.Sim)
		h := l.Profile(t, 0x10000, 0xC00, 8, nt.ProfileTime)
		idle := l.Profile(t, 0x20000, 0x100, 4, nt.ProfileTime)
		if _, err := l.Sim.Run(50_000, labtest.ThreeFuncs(l.P)); err != nil {
			t.Fatal(err)
		}
		th := l.P.MainThread()
		for _, h := range []uint64{h, idle} {
			if st, err := th.NtStopProfile(h); st != kernel.StatusSuccess || err != nil {
				t.Fatalf("stop: %v %v", st, err)
			}
		}
		if closeIt {
			for _, h := range []uint64{h, idle} {
				info, _ := l.P.ProfileInfo(h)
				if st, err := th.NtClose(h); st != kernel.StatusSuccess || err != nil {
					t.Fatalf("close: %v %v", st, err)
				}
				if err := l.P.Free(info.Buffer); err != nil {
					t.Fatal(err)
				}
			}
			if len(l.M.Profiles()) != 0 {
				t.Fatal("the kernel still lists the closed profiles")
			}
		}
		dir := t.TempDir()
		sum, err := output.Write(dir, reg)
		if err != nil {
			t.Fatal(err)
		}
		return dir, sum
	}
	openDir, open := write(false)
	closedDir, closed := write(true)
	want := []string{output.BucketsFile, output.AccuracyFile, "profile-m1-pid" /* … */}
	if len(closed.Files) != 3 || closed.Files[0] != want[0] || closed.Files[1] != want[1] || !bytes.HasPrefix([]byte(closed.Files[2]), []byte(want[2])) {
		t.Fatalf("files of the closed profiles %v, want %v…", closed.Files, want)
	}
	if !slices.Equal(open.Files, closed.Files) {
		t.Fatalf("files %v open, %v closed", open.Files, closed.Files)
	}
	for _, f := range closed.Files {
		a, _ := os.ReadFile(filepath.Join(openDir, f))
		b, _ := os.ReadFile(filepath.Join(closedDir, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the open profile and the closed one:\n%s\n---\n%s", f, a, b)
		}
	}
}
