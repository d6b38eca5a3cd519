package main

import "errors"

// Exit codes, documented in README.md.
const (
	ExitOK       = 0 // every check passed
	ExitFailed   = 1 // a check failed or a scenario raised an error
	ExitUsage    = 2 // bad command line, configuration or input file
	ExitPlugin   = 3 // a HAL plugin could not be found, started or kept running
	ExitInternal = 4 // a bug in proflab

	// ExitInterrupted: a sweep stopped by Ctrl-C or SIGTERM before its
	// last run (the shell's code for SIGINT); --resume goes on.
	ExitInterrupted = 130
)

// exitError carries an exit code through cobra.
type exitError struct {
	code   int
	err    error
	silent bool // already reported to the user
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err so that the process exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// silentExit ends the process with code without printing anything more.
func silentExit(code int) error {
	return &exitError{code: code, err: errors.New("exit"), silent: true}
}

func exitCodeOf(err error) int {
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return ExitUsage
}

func isSilent(err error) bool {
	var e *exitError
	return errors.As(err, &e) && e.silent
}
