package kernel

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

// written counts the pages of p's address space whose bytes exist.
func written(p *Process) int {
	n := 0
	for _, e := range p.mem.pt {
		if e.f.b != nil {
			n++
		}
	}
	return n
}

// nonZero lists the non-zero counters of counts as EachCounter gives
// them.
func nonZero(counts []uint32) [][2]uint32 {
	var out [][2]uint32
	for i, c := range counts {
		if c != 0 {
			out = append(out, [2]uint32{uint32(i), c})
		}
	}
	return out
}

// EachCounter gives what Counters gives that is not zero, started (the
// system mapping) or stopped (the owner's buffer), and reads a 64 MiB
// buffer of which two pages were counted in without making its other
// pages (issue 29 case 3: Counters made 2 GB of counters, twice over, for
// a profile of 2 GB that had counted once).
func TestEachCounterReadsOnlyWrittenPages(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	pr := e.own(e.th, userBase, 64<<20, 2) // 4-byte buckets: a 64 MiB buffer
	e.start(e.th, pr)
	for _, ip := range []uint64{userBase + 8, userBase + 8, userBase + 12, userBase + 40<<20 + 4} {
		if err := e.interrupt(0, nt.ProfileTime, ip, e.th); err != nil {
			t.Fatal(err)
		}
	}
	before := written(e.p)
	want := [][2]uint32{{2, 2}, {3, 1}, {(40<<20)/4 + 1, 1}}
	for _, stop := range []bool{false, true} {
		if stop {
			if st, err := e.th.NtStopProfile(pr.handle); st != StatusSuccess || err != nil {
				t.Fatal(st, err)
			}
		}
		rec := e.m.Profiles()[0]
		var got [][2]uint32
		if err := rec.EachCounter(func(i int, c uint32) error {
			got = append(got, [2]uint32{uint32(i), c})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("stopped %v: EachCounter gave %v, want %v", stop, got, want)
		}
		if w := written(e.p); w != before {
			t.Errorf("stopped %v: reading the counters made %d pages of the buffer", stop, w-before)
		}
	}
	all, err := e.m.Profiles()[0].Counters()
	if err != nil || !slices.Equal(nonZero(all), want) {
		t.Errorf("Counters: %v %v", nonZero(all), err)
	}
	// fn's error stops the walk and is returned
	stopErr := errors.New("enough")
	n := 0
	err = e.m.Profiles()[0].EachCounter(func(int, uint32) error { n++; return stopErr })
	if !errors.Is(err, stopErr) || n != 1 {
		t.Errorf("fn's error: %v after %d calls", err, n)
	}
}

// A buffer that is not 4-aligned has counters that straddle two pages:
// each is read whole, once, whether either page was written or not.
func TestEachCounterStraddlingPages(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	buf := e.alloc(e.p, 4*PageSize)
	base := buf + 2 // counter i at base+4i: counter 1023 straddles the first boundary
	rec := ProfileRecord{Owner: e.p, Info: ProfileInfo{Buffer: base, BufferSize: 3 * PageSize}}
	put := func(i int, v uint32) {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], v)
		if err := e.th.Write(base+uint64(4*i), b[:]); err != nil {
			t.Fatal(err)
		}
	}
	put(0, 7)
	put(1023, 0x01020304) // two bytes on each page
	put(2047, 9)          // on the second and third pages
	put(2100, 5)
	var got [][2]uint32
	if err := rec.EachCounter(func(i int, c uint32) error {
		got = append(got, [2]uint32{uint32(i), c})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	all, _ := rec.Counters()
	if want := nonZero(all); !slices.Equal(got, want) || len(want) != 4 {
		t.Errorf("EachCounter %v, Counters' non-zero %v", got, want)
	}
	// a freed buffer fails before fn is called
	if err := e.p.Free(buf); err != nil {
		t.Fatal(err)
	}
	called := false
	if err := rec.EachCounter(func(int, uint32) error { called = true; return nil }); err == nil || called {
		t.Errorf("a freed buffer: error %v, fn called %v", err, called)
	}
}
