package jsonprof_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
)

// Issue 29 case 1: a JSON profile nested 2·10^6 deep is refused by every
// JSON format with its line and the limit (encoding/json stops at 10,000
// levels), never with Go's fatal stack overflow.
func TestDeepJSONIsRefused(t *testing.T) {
	deep := strings.Repeat("[", 2e6)
	for _, tc := range []struct{ format, doc string }{
		{"cpuprofile", `{"startTime": 0, "endTime": 1, "samples": [], "timeDeltas": [], "nodes": ` + deep},
		{"speedscope", `{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": []}, "profiles": ` + deep},
		{"gecko", `{"meta": {"version": 24, "interval": 1}, "libs": [], "threads": ` + deep},
		{"stackprof", `{"mode": "cpu", "frames": {}, "raw": ` + deep},
		{"chrome-trace", `{"traceEvents": [{"ph": "P", "name": "ProfileChunk", "args": ` + strings.Repeat(`{"a": `, 1e6)},
	} {
		t.Run(tc.format, func(t *testing.T) {
			f, err := importer.Detect([]byte(tc.doc))
			if err != nil || string(f) != tc.format {
				t.Fatalf("detected %q, %v; want %s", f, err, tc.format)
			}
			_, err = importer.Import("deep.json", []byte(tc.doc), importer.Options{})
			if err == nil || !strings.Contains(err.Error(), "deep.json:1:") || !strings.Contains(err.Error(), "more than 10000 deep") {
				t.Errorf("error %v, want deep.json:1: … more than 10000 deep", err)
			}
		})
	}
}
