package results

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lineIndex reads the index of the lines Line.Marshal writes, and gives
// up (for the caller to decode the line) on any other.
func TestLineIndex(t *testing.T) {
	for _, i := range []int{0, 7, 12000, 1 << 40} {
		l := line(0)
		l.Index = i
		b, err := l.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := lineIndex(b); !ok || got != i {
			t.Errorf("line of index %d: lineIndex %d, %v", i, got, ok)
		}
	}
	for _, c := range []struct {
		raw   string
		index int
		ok    bool
	}{
		{`{"index":3,"id":"a"}`, 3, true},
		{`{"index":-2,"id":"a"}`, -2, true},
		{`{"index":03,"id":"a"}`, 0, false},
		{`{"index": 3,"id":"a"}`, 0, false},
		{`{ "index":3,"id":"a"}`, 0, false},
		{`{"id":"a","index":3}`, 0, false},
		{`{"index":3.5,"id":"a"}`, 0, false},
		{`{"index":3}`, 0, false},
		{`{"index":-,"id":"a"}`, 0, false},
		{`{"index":1234567890123456789,"id":"a"}`, 0, false},
		{`{"index":`, 0, false},
	} {
		if index, ok := lineIndex([]byte(c.raw)); index != c.index || ok != c.ok {
			t.Errorf("lineIndex(%s) = %d, %v; want %d, %v", c.raw, index, ok, c.index, c.ok)
		}
	}
}

// A line whose index is not where it begins (a key written twice, the
// last one winning) cannot make EachInRunOrder pass lines out of order.
func TestEachInRunOrderRechecksTheOrder(t *testing.T) {
	path := writeLines(t, []int{0, 1}, "")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[1] = strings.Replace(lines[1], `,"timings"`, `,"index":0,"timings"`, 1)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []int
	_, err = EachInRunOrder(path, nil, func(l Line) error { got = append(got, l.Index); return nil })
	if err == nil || !strings.Contains(err.Error(), FileName+":2: run idb (index 0) is out of run order") {
		t.Errorf("got %v, %v; want line 2 out of run order", got, err)
	}
}

// A line lineIndex cannot read (written by hand) is decoded instead.
func TestEachInRunOrderDecodesOtherLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var text strings.Builder
	for _, i := range []int{1, 0} {
		b, err := line(i).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(strings.Replace(string(b), `{"index":`, `{ "index": `, 1))
	}
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []int
	if _, err := EachInRunOrder(path, nil, func(l Line) error { got = append(got, l.Index); return nil }); err != nil || fmt.Sprint(got) != "[0 1]" {
		t.Errorf("got %v, %v; want [0 1]", got, err)
	}
}

// benchRunOrder is the cost of reading a sorted file of 12,000 lines (a
// sweep's, as the report reads it) with EachInRunOrder, holding them to
// runs.
func benchRunOrder(b *testing.B, runs Runs) {
	path := filepath.Join(b.TempDir(), FileName)
	app, err := OpenAppender(path)
	if err != nil {
		b.Fatal(err)
	}
	const lines = 12000
	for i := range lines {
		if err := app.Append(line(i)); err != nil {
			b.Fatal(err)
		}
	}
	app.Close()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := EachInRunOrder(path, runs, func(Line) error { n++; return nil }); err != nil || n != lines {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}

// BenchmarkEachInRunOrder reads the file with no runs to hold it to: the
// cost per line.
func BenchmarkEachInRunOrder(b *testing.B) { benchRunOrder(b, nil) }

// linesPlan are the runs of the lines line(0…n−1) write, as a sweep's
// plan computes them: each Expect builds the run's params anew.
type linesPlan int

func (n linesPlan) Len() int { return int(n) }

func (n linesPlan) Expect(i int) (Expected, bool) {
	l := line(i)
	return Expected{ID: l.ID, Params: l.Params, Seed: l.Seed}, true
}

// BenchmarkEachInRunOrderPlan reads it with the sweep's plan known
// (sweep.json records it: the report of every new sweep), every line
// held to it before the first is passed on.
func BenchmarkEachInRunOrderPlan(b *testing.B) { benchRunOrder(b, linesPlan(12000)) }
