package etl

import "testing"

func TestGUIDRoundTrip(t *testing.T) {
	for _, s := range []string{"b3e675d7-2554-4f18-830b-2762732560de", "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"} {
		g, err := ParseGUID("{" + s + "}")
		if err != nil {
			t.Fatal(err)
		}
		if g.String() != s {
			t.Errorf("ParseGUID(%q).String() = %q", s, g.String())
		}
	}
	// The stored form: first three fields little-endian.
	g := MustGUID("b3e675d7-2554-4f18-830b-2762732560de")
	want := GUID{0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f, 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde}
	if g != want {
		t.Errorf("stored form %x, want %x", g, want)
	}
	for _, bad := range []string{"", "b3e675d7-2554-4f18-830b", "zze675d7-2554-4f18-830b-2762732560de"} {
		if _, err := ParseGUID(bad); err == nil {
			t.Errorf("ParseGUID(%q) accepted", bad)
		}
	}
}
