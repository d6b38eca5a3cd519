package output_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/output"
)

// Counts that add up past what a profile holds are bad input naming the
// line (issue 36 item 4: two rows of 2^62 wrapped the total, "total
// variation 26.0000"); a profile at the bound is read.
func TestReadAccuracyRefusesCountsPastAProfile(t *testing.T) {
	head := strings.Join(output.AccuracyHeader, ",") + "\n"
	row := func(fn, samples string) string {
		return "p.pb.gz,1,12,h4,ProfileTime," + fn + "," + samples + ",,0.5,,,,,,,no truth,,\n"
	}
	_, err := output.ReadAccuracy("run/accuracy.csv", strings.NewReader(head+row("a", "4611686018427387904")+row("b", "4611686018427387904")))
	if err == nil || !strings.HasPrefix(err.Error(), "run/accuracy.csv:2: samples 4611686018427387904: p.pb.gz's samples add up to more than 2^53") {
		t.Errorf("2^62 twice: %v", err)
	}
	_, err = output.ReadAccuracy("run/accuracy.csv", strings.NewReader(head+row("a", "4503599627370496")+row("b", "4503599627370496")+row("c", "1")))
	if err == nil || !strings.HasPrefix(err.Error(), "run/accuracy.csv:4: samples 1: p.pb.gz's samples add up to more than 2^53") {
		t.Errorf("2^52 twice and one: %v", err)
	}
	got, err := output.ReadAccuracy("run/accuracy.csv", strings.NewReader(head+row("a", "4503599627370496")+row("b", "4503599627370496")))
	if err != nil || len(got) != 1 || got[0].Samples != output.MaxProfileSamples {
		t.Errorf("2^53 in all: %+v %v", got, err)
	}
	if _, err := output.ReadAccuracy("run/accuracy.csv", strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "not an accuracy.csv of this proflab") {
		t.Errorf("an empty file: %v", err)
	}
	if got, err := output.ReadAccuracy("run/accuracy.csv", strings.NewReader(head)); err != nil || len(got) != 0 {
		t.Errorf("a header alone: %+v %v", got, err)
	}
}
