package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/scenario"
)

// seedValue is --seed: an unsigned 64-bit integer, with an error that says
// so.
type seedValue uint64

func (s *seedValue) String() string { return strconv.FormatUint(uint64(*s), 10) }

func (s *seedValue) Set(v string) error {
	n, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		return fmt.Errorf("%q is not a seed: give a whole number from 0 to 18446744073709551615 (decimal or 0x hex)", v)
	}
	*s = seedValue(n)
	return nil
}

func (s *seedValue) Type() string { return "uint64" }

// preflight checks the configured HALs against the HALs themselves
// (scenario.Setup.Preflight): setup then holds the configuration in force
// and the plugins, and the returned provider is the warm plugin host of
// one worker, closed by the returned function. A setting a HAL rejects or
// a plugin that is not there is bad input (exit 2); a plugin that cannot
// be started or answer is a plugin failure (exit 3).
func preflight(setup *scenario.Setup) (lab.HALProvider, func(), error) {
	prov, closeFn, err := setup.Preflight(halhost.Options{})
	if err != nil {
		code := ExitPlugin
		if errors.Is(err, halhost.ErrConfig) {
			code = ExitUsage
		}
		return nil, nil, withCode(code, fmt.Errorf("the configuration's HALs:\n%w", err))
	}
	return prov, closeFn, nil
}
