// Package runerr says why a scenario run stopped with an error: the kinds
// of failure (the scenario's own error, a HAL plugin failure, a proflab
// bug, a budget or a cancellation, unreadable input) and the Error that
// carries one. The Lua interpreter (core/luavm) and the proflab module on
// it (core/luart) raise them, the scenario
// runner (core/scenario) reports them and the CLI maps their kinds to its
// exit codes; this small leaf lets each do so without importing the
// others.
package runerr

import "strings"

// Kind classifies why a run stopped.
type Kind string

// The kinds of Error.
const (
	KindLua         Kind = "lua"         // the scenario raised an error (or did not compile)
	KindBug         Kind = "bug"         // a Go panic inside proflab: a bug, not the scenario's fault
	KindTimeout     Kind = "timeout"     // the wall-clock budget ran out
	KindInterrupted Kind = "interrupted" // the run was cancelled (Ctrl-C, SIGTERM)
	KindInput       Kind = "input"       // the scenario file could not be read
	KindPlugin      Kind = "plugin"      // a HAL plugin failed
	KindMemory      Kind = "memory"      // the scenario exceeded its memory budget
)

// Error is why a run failed with an error (as opposed to failed checks).
type Error struct {
	Kind      Kind   `json:"kind"`
	Message   string `json:"message"`             // with the scenario's file:line where known
	Where     string `json:"where,omitempty"`     // that file:line alone, where known
	Traceback string `json:"traceback,omitempty"` // Lua stack traceback
	GoStack   string `json:"go_stack,omitempty"`  // for bugs: where Go panicked
}

// Error implements error.
func (e *Error) Error() string { return e.Message }

// Detail is the message followed by the traceback (and the Go stack of a
// bug), for people.
func (e *Error) Detail() string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Traceback != "" {
		b.WriteString("\n")
		b.WriteString(e.Traceback)
	}
	if e.GoStack != "" {
		b.WriteString("\nGo stack (include it in the bug report):\n")
		b.WriteString(e.GoStack)
	}
	return b.String()
}

// Unlocated is the message without its leading file:line (Where): what
// happened, for a reader to whom the script's line means nothing, such as
// the user of a tool the lab runs as a Lua program.
func (e *Error) Unlocated() string {
	if e.Where != "" {
		if msg, ok := strings.CutPrefix(e.Message, e.Where+": "); ok {
			return msg
		}
	}
	return e.Message
}
