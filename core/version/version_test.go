package version

import "testing"

func TestString(t *testing.T) {
	if String() == "" {
		t.Fatal("empty version")
	}
	old := Stamp
	defer func() { Stamp = old }()
	Stamp = "v1.2.3"
	if got := String(); got != "v1.2.3" {
		t.Errorf("String() = %q with the stamp v1.2.3", got)
	}
}
