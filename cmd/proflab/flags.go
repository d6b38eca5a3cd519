package main

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
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
// (halhost.Preflight) and returns the configuration in force. A setting a
// HAL rejects or a plugin that is not there is bad input (exit 2); a plugin
// that cannot be started or answered is a plugin failure (exit 3).
func preflight(cmd *cobra.Command, cfg *config.Config) (*config.Config, []halhost.Plugin, error) {
	host := halhost.New(cfg.HAL, halhost.Options{Logger: slog.New(slog.DiscardHandler)})
	defer host.Close()
	defer host.CloseWhenDone(cmd.Context())()
	out, plugins, err := halhost.Preflight(host, cfg)
	if err != nil {
		code := ExitPlugin
		if errors.Is(err, halhost.ErrConfig) {
			code = ExitUsage
		}
		return nil, nil, withCode(code, fmt.Errorf("the configuration's HALs:\n%w", err))
	}
	return out, plugins, nil
}
