package profmodel_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// Two images given one name are told apart with "#2" (and a note); a
// function known by its address alone is named image+0xOFFSET from the
// image's origin once laid out.
func TestNamesAfterLayout(t *testing.T) {
	t.Parallel()
	m := profmodel.New(context.Background())
	a, b := m.Image("a", "libx.so", false), m.Image("b", "libx.so", false)
	if a.Name() != "libx.so" || b.Name() != "libx.so#2" || m.LookupImage("b") != b || m.LookupImage("c") != nil {
		t.Fatalf("images %q and %q", a.Name(), b.Name())
	}
	if len(m.Notes()) != 1 {
		t.Errorf("notes %q, want one on the second libx.so", m.Notes())
	}
	f := m.Func(a, profmodel.AddressName(0x7f0000001234))
	f.MarkUnsymbolized()
	th := m.Process("1", "p").Thread("1")
	m.Add(th, []profmodel.Frame{{Func: f, Addr: 0x7f0000001234, HasAddr: true}}, 1)
	target, _ := profmodel.TargetFor("x64")
	if err := m.Layout(target); err != nil {
		t.Fatal(err)
	}
	// no mapping: the origin is the page below the lowest address
	if f.Name() != "libx.so+0x234" || a.Lookup(profmodel.AddressName(0x7f0000001234)) != f {
		t.Errorf("the unsymbolized function is %q, want libx.so+0x234", f.Name())
	}
}

// A library loaded by several processes is one note, at its first
// rename, naming every image made unique; images moved off their source
// addresses are one note too, naming the first three.
func TestGroupedNotes(t *testing.T) {
	t.Parallel()
	m := profmodel.New(context.Background())
	for i, key := range []string{"p1", "p2", "p3", "p4"} {
		img := m.Image(key, "libc.so.6", false)
		other := m.Image(key+"-main", "main", false)
		th := m.Process(key, "p").Thread("1")
		for j, g := range []*profmodel.Image{img, other} {
			// every process's copy at the same source addresses: all
			// but the first are moved
			addr := uint64(0x7f0000100000 + j*0x100000)
			f := m.Func(g, "f")
			m.Add(th, []profmodel.Frame{{Func: f, Addr: addr, HasAddr: true}}, float64(i+1))
		}
	}
	target, _ := profmodel.TargetFor("x64")
	if err := m.Layout(target); err != nil {
		t.Fatal(err)
	}
	notes := m.Notes()
	want := []string{
		`4 images are named "libc.so.6" (the same file in several processes, or several files of that name): the others are "libc.so.6#2", "libc.so.6#3", "libc.so.6#4"`,
		`4 images are named "main" (the same file in several processes, or several files of that name): the others are "main#2", "main#3", "main#4"`,
	}
	if len(notes) != 3 || notes[0] != want[0] || notes[1] != want[1] {
		t.Fatalf("notes:\n%s\nwant the two renames, then the moves", strings.Join(notes, "\n"))
	}
	if !strings.HasPrefix(notes[2], "6 images moved: ") || !strings.Contains(notes[2], `"libc.so.6#2" from 0x7F0000100000 to `) || strings.Contains(notes[2], "more") {
		t.Errorf("the moves' note is %q", notes[2])
	}
	// every image moved is named, with where it went (docs/workload-import.md, Addresses, step 2)
	moves := regexp.MustCompile(`"([^"]+)" from 0x[0-9A-F]+ to 0x[0-9A-F]+ \(user space\)`).FindAllStringSubmatch(notes[2], -1)
	var names []string
	for _, mv := range moves {
		names = append(names, mv[1])
	}
	if got, want := strings.Join(names, " "), "libc.so.6#2 main#2 libc.so.6#3 main#3 libc.so.6#4 main#4"; got != want {
		t.Errorf("the note names the moved images %q, want %q:\n%s", got, want, notes[2])
	}
}

// Once its context has ended, the model stops adding samples (looked at
// every 4096th) and says why.
func TestAddStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	cause := errors.New("the memory budget")
	ctx, cancel := context.WithCancelCause(context.Background())
	m := profmodel.New(ctx)
	img := m.Image("a", "a", false)
	th := m.Process("", "p").Thread("")
	frames := []profmodel.Frame{{Func: m.Func(img, "f")}}
	m.Add(th, frames, 1)
	cancel(cause)
	for range 5000 {
		m.Add(th, frames, 1)
	}
	if !errors.Is(m.Err(), cause) || th.Weight() != 4095 {
		t.Errorf("weight %v, err %v: want the 4095 samples before the check and the cause", th.Weight(), m.Err())
	}
}
