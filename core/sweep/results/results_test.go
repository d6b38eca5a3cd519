package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func line(i int) Line {
	return Line{Index: i, ID: "id" + string(rune('a'+i)), Params: map[string]any{"n": int64(i), "s": "x"},
		Status: StatusOK, Metrics: map[string]any{"f": 0.5, "bad": math.NaN(), "inf": math.Inf(-1)},
		Checks: []Check{}, Interrupts: map[string]uint64{"ProfileTime": 3}, Timings: Timings{WallSeconds: 0.25}}
}

// Lines round-trip to the same bytes; NaN and infinities become strings.
func TestMarshalParse(t *testing.T) {
	b, err := line(1).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"bad":"NaN"`) || !strings.Contains(string(b), `"inf":"-Inf"`) || b[len(b)-1] != '\n' {
		t.Errorf("marshal: %s", b)
	}
	l, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := l.Marshal()
	if string(again) != string(b) {
		t.Errorf("round trip:\n%s\n%s", b, again)
	}
	if w, _ := l.WithoutTimings().Marshal(); strings.Contains(string(w), "0.25") {
		t.Errorf("WithoutTimings kept the timings: %s", w)
	}
	for _, bad := range []string{`{"index":1}`, `{"id":"a","status":"ok","extra":1}`, `not json`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) accepted", bad)
		}
	}
}

// Read drops a torn last line and reports it; a bad line in the middle is
// an error naming the file and line; Appender and Write produce what Read
// reads.
func TestReadAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	a, err := OpenAppender(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := a.Append(line(i)); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	ls, torn, err := Read(path)
	if err != nil || torn || len(ls) != 3 || ls[2].Index != 2 {
		t.Fatalf("read: %d lines, torn %v, %v", len(ls), torn, err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"index":3,"id":"`)
	f.Close()
	if ls, torn, err := Read(path); err != nil || !torn || len(ls) != 3 {
		t.Fatalf("torn: %d lines, torn %v, %v", len(ls), torn, err)
	}
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte("garbage\n"+string(data)), 0o644)
	if _, _, err := Read(path); err == nil || !strings.Contains(err.Error(), FileName+":1:") {
		t.Fatalf("garbage line: %v", err)
	}
	ls = []Line{line(2), line(0), line(1)}
	SortByIndex(ls)
	if err := Write(path, ls); err != nil {
		t.Fatal(err)
	}
	got, torn, err := Read(path)
	if err != nil || torn || len(got) != 3 || got[0].Index != 0 || got[2].Index != 2 {
		t.Fatalf("after Write: %+v %v %v", got, torn, err)
	}
}

// Scrub takes out of a message what differs between two processes
// failing the same way: pids and a goroutine dump.
func TestScrub(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plugin /x/proflab-hal-apic, pid 12345: exited; pid 7", "plugin /x/proflab-hal-apic, pid N: exited; pid N"},
		{"set: the HAL panicked: boom\ngoroutine 39 [running]:\nruntime/debug.Stack()\n\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e\nmain.f(0xc000012345)\n",
			"set: the HAL panicked: boom (a Go stack followed; the run's log has it)"},
		{"no goroutine here: goroutine 5 is a word", "no goroutine here: goroutine 5 is a word"},
	} {
		if got := Scrub(c.in); got != c.want {
			t.Errorf("Scrub(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
