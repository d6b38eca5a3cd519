package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proflab/proflab/core/suggest"
)

// flagError is every command's error for a flag it cannot take (the
// root's FlagErrorFunc, which every command inherits): an unknown flag
// with the nearest one the command has (core/suggest's rule, as the Lua
// bindings' "did you mean"), a bad value as "--flag value: what is wrong".
// Exit status 2.
func flagError(cmd *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	var invalid *pflag.InvalidValueError
	switch {
	case errors.As(err, &unknown):
		typed := unknown.GetSpecifiedShortnames() // -seed: one dash before a long name
		if typed == "" {
			typed = unknown.GetSpecifiedName()
		}
		err = fmt.Errorf("%w%s", err, didYouMean(cmd.Flags(), typed))
	case errors.As(err, &invalid):
		err = fmt.Errorf("--%s %s: %w", invalid.GetFlag().Name, invalid.GetValue(), invalid.Unwrap())
	}
	return withCode(ExitUsage, err)
}

// unknownFlag is the error for a long flag fs does not have, name
// without its dashes, as pflag words it, with the nearest flag fs has.
func unknownFlag(fs *pflag.FlagSet, name string) string {
	return fmt.Sprintf("unknown flag: --%s%s", name, didYouMean(fs, name))
}

// didYouMean is " (did you mean --NAME?)" for the flag of fs nearest to
// typed (a name without its dashes), or "" when none is near.
func didYouMean(fs *pflag.FlagSet, typed string) string {
	if len(typed) < 2 {
		return "" // a shorthand letter: any would be near
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Deprecated == "" {
			names = append(names, f.Name)
		}
	})
	if near := suggest.Closest(typed, names); near != "" {
		return fmt.Sprintf(" (did you mean --%s?)", near)
	}
	return ""
}
