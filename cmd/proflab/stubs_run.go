package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newRunCmd() *cobra.Command {
	return &cobra.Command{Use: "run FILE.lua", Short: "Run one scenario", RunE: func(*cobra.Command, []string) error {
		return withCode(ExitInternal, errors.New("run: not built yet"))
	}}
}

func newTestCmd() *cobra.Command {
	return &cobra.Command{Use: "test PATH...", Short: "Run scenarios", RunE: func(*cobra.Command, []string) error {
		return withCode(ExitInternal, errors.New("test: not built yet"))
	}}
}
