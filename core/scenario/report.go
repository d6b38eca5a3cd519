package scenario

import (
	"fmt"
	"io"
	"strings"
)

// Summary is the one-line outcome of a run:
// "PASS scenarios/x.lua (5 checks)", "FAIL scenarios/x.lua (5 checks, 2 failed)"
// or "FAIL scenarios/x.lua (3 checks; error)".
func Summary(r Result) string {
	n := len(r.Checks)
	checks := fmt.Sprintf("%d check%s", n, plural(n))
	switch r.Status {
	case StatusPassed:
		return fmt.Sprintf("PASS %s (%s)", r.Scenario, checks)
	case StatusFailed:
		return fmt.Sprintf("FAIL %s (%s, %d failed)", r.Scenario, checks, len(r.Failed()))
	}
	kind := "error"
	if r.Error != nil {
		kind = string(r.Error.Kind)
		if r.Error.Kind == "lua" {
			kind = "error"
		}
	}
	if f := len(r.Failed()); f > 0 {
		return fmt.Sprintf("FAIL %s (%s, %d failed; %s)", r.Scenario, checks, f, kind)
	}
	return fmt.Sprintf("FAIL %s (%s; %s)", r.Scenario, checks, kind)
}

// WriteDetails writes, indented by indent, each failed check as
// "file:line: message" and the error with its traceback.
func WriteDetails(w io.Writer, r Result, indent string) {
	for _, c := range r.Failed() {
		msg := c.Message
		if msg == "" {
			msg = "check failed"
		}
		fmt.Fprintf(w, "%s%s: %s\n", indent, c.Where, msg)
	}
	if r.Error != nil {
		for _, line := range strings.Split(r.Error.Detail(), "\n") {
			fmt.Fprintf(w, "%s%s\n", indent, line)
		}
	}
}

// WriteTestResult writes the lines `proflab test` prints for one run: the
// summary and, indented, its log (when verbose), failed checks and error.
func WriteTestResult(w io.Writer, r Result, verbose bool) {
	fmt.Fprintln(w, Summary(r))
	if verbose && r.Log != "" {
		for _, line := range strings.Split(strings.TrimSuffix(r.Log, "\n"), "\n") {
			fmt.Fprintf(w, "    | %s\n", line)
		}
	}
	WriteDetails(w, r, "    ")
}

// Totals counts passed and failed results, for the closing line of
// `proflab test`: "N passed, N failed".
type Totals struct{ Passed, Failed int }

// Add counts one result.
func (t *Totals) Add(r Result) {
	if r.Passed() {
		t.Passed++
	} else {
		t.Failed++
	}
}

// String is "N passed, N failed".
func (t Totals) String() string { return fmt.Sprintf("%d passed, %d failed", t.Passed, t.Failed) }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
