package output

import "testing"

func TestTraceImageName(t *testing.T) {
	for in, want := range map[string]string{"app.exe": "app.exe", "my app.exe": "my_app.exe", "a\tb": "a_b"} {
		if got := traceImageName(in); got != want {
			t.Errorf("traceImageName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := imageFileName("my app"); got != "my app.exe" {
		t.Errorf("imageFileName(%q) = %q", "my app", got)
	}
}
